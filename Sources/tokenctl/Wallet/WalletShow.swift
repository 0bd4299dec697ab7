import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct WalletShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show the pass records with a serial number (an iPhone pass and a Watch pass can share one).",
        discussion: "Exit 66 when none matches. --json prints an array."
    )

    @OptionGroup var selection: PassSelection
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let settings = try await global.readingSettings()
            let records = try await Wallet(settings: settings).show(selection.query)
            if output.json {
                Output.line(JSONObject.Value.array(records.map { .object($0.json(reveal: output.reveal)) }).text)
            } else {
                Output.write(records.map { PassRecordText.block($0, reveal: output.reveal) }.joined(separator: "\n"))
            }
        }
    }
}
