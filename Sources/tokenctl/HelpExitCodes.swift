import ArgumentParser
import ErrorCodes
import TokenActivation

/// `tokenctl help exit-codes`: the exit statuses and every error code, from the code.
struct HelpExitCodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "Print every exit status and error code with its meaning (tokenctl help exit-codes).",
        discussion: "The table is generated from the code: scripts can rely on every code it lists."
    )

    @Flag(help: "Print Markdown tables (as in the README).")
    var markdown = false

    @Flag(help: "Print a JSON array of {code, exit, meaning}.")
    var json = false

    func run() throws {
        if json {
            Output.line(JSONObject.Value.array(ErrorCode.allCases.map { code in
                .object(JSONObject(["code": .string(code.rawValue), "exit": .int(Int(code.exitStatus.rawValue)), "meaning": .string(code.meaning)]))
            }).text)
        } else {
            Output.line(markdown ? ErrorCodeTable.markdown : ErrorCodeTable.text)
        }
        Output.flush()
    }
}
