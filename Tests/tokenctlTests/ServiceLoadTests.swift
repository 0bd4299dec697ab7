import Foundation
import Sandbox
import TestSupport
import Testing

/// Exactly once under load: 32 keep-alive clients × 100 activations over shared passes
/// through the service, with CLI processes on the same database at the same time.
@Suite struct ServiceLoadTests {
    static let passes = 200
    static let clients = 32
    static let perClient = 100
    static let cliLoops = 4
    static let perCLILoop = 25

    @Test(arguments: Backend.allCases)
    func eachPassIsPostedOnceAndEveryAttemptAuditedOnce(backend: Backend) async throws {
        let passes = (1...Self.passes).map { (String(format: "SNLOAD%05d", $0), String(format: "DAPLLOAD%010d", $0)) }
        let activation = try await ActivationHarness.start(backend: backend)
        try await withTeardown({ try await activation.stop() }) {
            let csv =
                "serialNumber,deviceAccountIdentifier\n" + passes.map { "\($0.0),\($0.1)" }.joined(separator: "\n")
                + "\n"
            let imported = try activation.cli.run(["wallet", "import", activation.cli.write("passes.csv", csv)])
            try #require(imported.status == 0, "\(imported.stderr)")
            let service = try ServiceHarness.launch(activation)
            defer { _ = try? service.stop() }

            // Each client walks the passes from its own offset: every pass is asked for by
            // 16 clients, concurrently, and by the CLI loops beside them.
            let cli = activation.cli, socket = service.socket
            let clients = (0..<Self.clients).map { client in
                Background { () throws -> CLIResult in
                    var config = ""
                    for index in 0..<Self.perClient {
                        let serial = passes[(client * 37 + index * 2) % passes.count].0
                        if index > 0 { config += "next\n" }
                        config +=
                            "url = \"http://localhost/v1/activations\"\nunix-socket = \"\(socket)\"\nheader = \"Content-Type: application/json\"\n"
                        config +=
                            "data = \"{\\\"deeplink\\\": \\\"mybank://activate?serialNumber=\(serial)\\\"}\"\nwrite-out = \"\\\\n\"\nsilent\n"
                    }
                    return try cli.run(
                        executable: "/usr/bin/curl", ["--config", cli.write("client-\(client).curl", config)])
                }
            }
            let loops = (0..<Self.cliLoops).map { loop in
                Background { () throws -> [Int32] in
                    try (0..<Self.perCLILoop).map { index in
                        try cli.run([
                            "activate",
                            "mybank://activate?serialNumber=\(passes[(loop * 53 + index * 3) % passes.count].0)",
                            "--json",
                        ]).status
                    }
                }
            }
            var answers: [[String: Any]] = []
            for client in clients {
                let result = try client.join()
                #expect(result.status == 0, "\(result.stderr)")
                for line in result.stdout.split(separator: "\n") {
                    answers.append(
                        try #require(
                            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)"))
                }
            }
            let cliStatuses = try loops.flatMap { try $0.join() }
            #expect(answers.count == Self.clients * Self.perClient)

            // The service answered every request with an outcome or the in-progress refusal;
            // the CLI exited 0 or 75 (in progress): nothing was "locked".
            for answer in answers {
                let code = answer["code"] as? String ?? ((answer["error"] as? [String: Any])?["code"] as? String)
                #expect(
                    answer["outcome"] as? String == "APPROVED" || answer["outcome"] as? String == "ALREADY_ACTIVATED"
                        || code == "activation.inProgress", "\(answer)")
            }
            #expect(cliStatuses.allSatisfy { $0 == 0 || $0 == 75 }, "\(cliStatuses)")

            // Each pass asked for was POSTed exactly once, and every request is audited.
            let references = activation.sandbox.requests.filter {
                $0.method == "POST" && $0.header("X-Request-ID") != nil
            }
            .map { String(decoding: $0.body, as: UTF8.self) }
            #expect(references.count == Set(references).count, "a pass was POSTed twice")
            #expect(try activation.unauditedRequests().isEmpty)
            let approved = try activation.auditEntries().filter { $0["outcome"] as? String == "APPROVED" }
            #expect(approved.count == references.count)
            #expect(try activation.cli.run("audit", "verify").status == 0)
            let unfinished = try #require(
                try activation.cli.run("audit", "list", "--unfinished", "--json").json() as? [Any])
            #expect(unfinished.isEmpty)
            print(
                "service load (\(backend)): \(answers.count) service answers + \(cliStatuses.count) CLI runs, \(references.count) passes POSTed once each"
            )
        }
    }
}
