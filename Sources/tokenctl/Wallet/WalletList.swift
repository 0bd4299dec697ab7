import ArgumentParser
import TokenActivation

struct WalletList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List pass records in serial number order.",
        discussion: "--json prints an array of pass objects; output streams, whatever the wallet size."
    )

    @Option(help: ArgumentHelp("Only records in this state: \(PassState.names).", valueName: "state"))
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
            let settings = try await global.settings()
            var count = 0
            if !output.json { Output.line(PassRecordText.tableHeader) }
            try Wallet(settings: settings).forEach(state: state.flatMap(PassState.init)) { record in
                if output.json {
                    Output.write((count == 0 ? "[\n" : ",\n") + record.json(reveal: output.reveal).text)
                } else {
                    Output.line(PassRecordText.tableRow(record, reveal: output.reveal))
                }
                count += 1
            }
            if output.json {
                Output.line(count == 0 ? "[]" : "\n]")
            } else {
                Output.line("\(count) pass record\(count == 1 ? "" : "s")")
            }
        }
    }
}
