import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

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
            A pass already activated (or being activated) is not moved back to requiresActivation or \
            activating by the file's state column, so a re-import never sends it again: the summary \
            counts the states kept; --overwrite-state lets the file's state win. \
            A progress bar is shown on a terminal.
            """
    )

    @Argument(
        help: ArgumentHelp("The file to import, or - for standard input.", valueName: "file"),
        completion: .file(extensions: ["csv", "jsonl"]))
    var file: String

    @Option(
        help: ArgumentHelp(
            "csv or jsonl (default: from the file extension, else from the content).", valueName: "format"))
    var format: WalletFileFormat?

    @Flag(
        name: .customLong("overwrite-state"),
        help: "Let the file's state move an activated or activating pass back (it would be sent again).")
    var overwriteState = false

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.settings()
            let bar = Output.standardErrorIsTerminal && !json ? ProgressBar(label: "importing") : nil
            defer { bar?.clear() }
            let input: ImportInput = file == "-" ? .standardInput : .file(file)
            let summary = try await Wallet(settings: settings).importRecords(
                from: input, format: format, overwriteState: overwriteState
            ) { read, total in
                bar?.update(done: read, total: total)
            }
            bar?.clear()
            if json {
                Output.line(
                    JSONObject([
                        "rows": .int(summary.rows), "inserted": .int(summary.inserted),
                        "updated": .int(summary.updated), "unchanged": .int(summary.unchanged),
                        "keptStates": .int(summary.keptStates),
                    ]).text)
            } else {
                Output.line(
                    "imported \(summary.rows) row\(summary.rows == 1 ? "" : "s"): \(summary.inserted) new, \(summary.updated) updated, \(summary.unchanged) unchanged"
                )
                if summary.keptStates > 0 {
                    Output.line(
                        "kept the state of \(summary.keptStates) activated or activating pass\(summary.keptStates == 1 ? "" : "es") (--overwrite-state lets the file's state win)"
                    )
                }
            }
        }
    }
}
