import ArgumentParser
import Sandbox

struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run the loopback TMP simulator on 127.0.0.1.",
        discussion: """
            The first line on standard output is `listening http://127.0.0.1:PORT`; then one line per \
            request. Ordinary token references are APPROVED; references starting with a marker get \
            its behaviour:
            \(TMPMarker.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
            GET /_sandbox/stats reports how many activation requests arrived.
            """
    )

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8787

    @Option(name: .customLong("slow-delay-ms"), help: "How long SBXSLOW references wait before answering.")
    var slowDelayMilliseconds: Int = 5000

    func run() async throws {
        let sandbox = try await TMPSandbox.start(port: port, slowDelay: .milliseconds(slowDelayMilliseconds)) { line in
            Output.line(line)
            Output.flush()
        }
        Output.line("listening \(sandbox.baseURL)")
        Output.flush()
        try await sandbox.waitUntilClosed()
    }
}
