import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct WalletRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove one pass record.",
        discussion:
            "When several records share the serial, name one with --device (or --pass-type-id); otherwise exit 66, as when none matches."
    )

    @OptionGroup var selection: PassSelection
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let settings = try await global.settings()
            let record = try await Wallet(settings: settings).remove(selection.query)
            if output.json {
                Output.line(JSONObject(["removed": .object(record.json(reveal: output.reveal))]).text)
            } else {
                let device = record.device.map { " on device \"\($0)\"" } ?? ""
                Output.line("removed pass \(Mask.identifier(record.serialNumber, reveal: output.reveal))\(device)")
            }
        }
    }
}
