import ArgumentParser
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct WalletList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List pass records in serial number order.",
        discussion: "--json prints an array of pass objects; output streams, whatever the wallet size."
    )

    @Option(
        help: ArgumentHelp("Only records in this state: \(PassState.names).", valueName: "state"),
        completion: .list(PassState.allCases.map(\.rawValue)))
    var state: String?

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let state, PassState(rawValue: state) == nil {
            throw ValidationError("--state must be one of \(PassState.names)")
        }
    }

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let settings = try await global.readingSettings()
            var list = ListPrinter(json: output.json, header: PassRecordText.tableHeader)
            try await Wallet(settings: settings).forEach(state: state.flatMap(PassState.init)) { record in
                list.add(
                    record.json(reveal: output.reveal), text: PassRecordText.tableRow(record, reveal: output.reveal))
            }
            list.finish(noun: "pass record", plural: "pass records")
        }
    }
}
