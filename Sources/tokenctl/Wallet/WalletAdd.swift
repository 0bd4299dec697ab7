import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct WalletAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add one pass record.",
        discussion: """
            Fails with exit 65 when the record exists, or when its serial and device label \
            already belong to another device account id; a bad value is exit 64.
            """
    )

    @Option(name: .customLong("serial"), help: ArgumentHelp("Pass serial number (1-128 bytes).", valueName: "serial"))
    var serial: String

    @Option(
        name: .customLong("device-account-id"),
        help: ArgumentHelp(
            "Device account identifier, sent to TMP as tokenUniqueReference (1-64 letters or digits).", valueName: "id")
    )
    var deviceAccountID: String

    @Option(
        name: .customLong("pass-type-id"),
        help: ArgumentHelp("Pass type identifier (default: paymentpass.com.apple).", valueName: "id"))
    var passType: String?

    @Option(
        help: ArgumentHelp("Activation state: \(PassState.names) (default: requiresActivation).", valueName: "state"),
        completion: .list(PassState.allCases.map(\.rawValue)))
    var state: String?

    @Option(
        help: ArgumentHelp(
            "Device label that tells apart passes with one serial, e.g. iPhone or Watch.", valueName: "label"))
    var device: String?

    @Option(
        name: .customLong("card-suffix"), help: ArgumentHelp("Last 4 or 5 digits of the card.", valueName: "digits"))
    var cardSuffix: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let settings = try await global.settings()
            let record = try await Wallet(settings: settings).add(
                PassRecordFields(
                    serialNumber: serial, deviceAccountIdentifier: deviceAccountID, passTypeIdentifier: passType,
                    state: state, device: device, cardSuffix: cardSuffix
                ))
            if output.json {
                Output.line(record.json(reveal: output.reveal).text)
            } else {
                Output.line(
                    "added pass \(Mask.identifier(record.serialNumber, reveal: output.reveal))"
                        + " (device account id \(Mask.identifier(record.deviceAccountIdentifier, reveal: output.reveal)), \(record.state.rawValue))"
                )
            }
        }
    }
}
