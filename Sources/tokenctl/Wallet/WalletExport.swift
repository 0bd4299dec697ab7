import ArgumentParser
import TokenActivation
import TokenctlApp
import TokenctlCommandLine

struct WalletExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every pass record to standard output, whole (a backup that `wallet import` reads back).",
        discussion: "Identifiers are never masked here; --reveal is accepted and changes nothing."
    )

    @Option(
        help: ArgumentHelp(
            "csv (default: the import format, with its header; operators edit it) or jsonl. audit export defaults to jsonl because its entries carry nulls and free text.",
            valueName: "format"))
    var format: WalletFileFormat = .csv

    @Flag(help: "Accepted for symmetry with other commands; export always writes whole values.")
    var reveal = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: false) {
            let settings = try await global.readingSettings()
            try await Wallet(settings: settings).export(format: format) { Output.write($0) }
        }
    }
}
