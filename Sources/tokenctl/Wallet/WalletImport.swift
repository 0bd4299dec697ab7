import ArgumentParser
import TokenActivation

extension WalletFileFormat: ExpressibleByArgument {}

struct WalletImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add or update pass records from a CSV or JSON Lines file, all or nothing.",
        discussion: """
            CSV needs a header row naming the columns: serialNumber and deviceAccountIdentifier \
            (required), passTypeIdentifier, state, device, cardSuffix. JSON Lines has one object a line \
            with the same keys. Records are matched on (pass type, serial, device account id): a match \
            is updated with the values given (an empty or missing value keeps the stored one), \
            anything else is added. At the first bad row (line number and reason shown) the import \
            stops with exit 65 and nothing from the file is written. Reads standard input for "-". \
            A progress bar is shown on a terminal.
            """
    )

    @Argument(help: ArgumentHelp("The file to import, or - for standard input.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("csv or jsonl (default: from the file extension, else from the content).", valueName: "format"))
    var format: WalletFileFormat?

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.settings()
            let bar = Output.standardErrorIsTerminal && !json ? ProgressBar(label: "importing") : nil
            defer { bar?.clear() }
            let input: ImportInput = file == "-" ? .standardInput : .file(file)
            let summary = try Wallet(settings: settings).importRecords(from: input, format: format) { read, total in
                bar?.update(done: read, total: total)
            }
            bar?.clear()
            if json {
                Output.line(JSONObject([
                    "rows": .int(summary.rows), "inserted": .int(summary.inserted),
                    "updated": .int(summary.updated), "unchanged": .int(summary.unchanged),
                ]).text)
            } else {
                Output.line("imported \(summary.rows) row\(summary.rows == 1 ? "" : "s"): \(summary.inserted) new, \(summary.updated) updated, \(summary.unchanged) unchanged")
            }
        }
    }
}
