import ArgumentParser
import ErrorCodes
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// `tokenctl help exit-codes`: the exit statuses and every error code, from the code.
struct HelpExitCodes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exit-codes",
        abstract: "Print every exit status and error code with its meaning.",
        usage: "tokenctl help exit-codes [--markdown] [--json]",
        discussion: """
            The table is generated from the code: scripts can rely on every code it lists. Every \
            failing command prints its code in --json output ({"error": {"code": …}}) and on standard \
            error; look it up here, or with --json: tokenctl help exit-codes --json | jq '.[] | select(.code == "tmp.timeout")'.
            """
    )

    @Flag(help: "Print Markdown tables (as in docs/exit-codes.md).")
    var markdown = false

    @Flag(help: "Print a JSON array of {code, exit, meaning}.")
    var json = false
    /// Taken as every command takes them (a script passes them to every command); unused.
    @OptionGroup var global: GlobalOptions

    func run() throws {
        if json {
            Output.line(
                JSONObject.Value.array(
                    ErrorCode.allCases.map { code in
                        .object(
                            JSONObject([
                                "code": .string(code.rawValue), "exit": .int(Int(code.exitStatus.rawValue)),
                                "meaning": .string(code.meaning),
                            ]))
                    }
                ).text)
        } else {
            Output.line(markdown ? ErrorCodeTable.markdown : ErrorCodeTable.text)
        }
        Output.flush()
    }
}
