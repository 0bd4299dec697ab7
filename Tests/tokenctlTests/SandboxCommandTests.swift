import Foundation
import TestSupport
import Testing

@Suite struct SandboxCommandTests {
    /// `tokenctl sandbox` as its own process: the first line names its address, and an
    /// activation against it is counted by its stats endpoint.
    @Test func theSandboxProcessAnnouncesItselfAndCounts() throws {
        var cli = CLI()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["sandbox", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate(); process.waitUntilExit() }

        var firstLine = Data()
        while !firstLine.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "the sandbox exited before announcing itself")
            firstLine += chunk
        }
        let line = String(decoding: firstLine.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(line.hasPrefix("listening http://127.0.0.1:"))
        let url = String(line.dropFirst("listening ".count))
        #expect(Int(url.split(separator: ":").last ?? "") ?? 0 > 0)

        cli.environment["TOKENCTL_TMP_BASE_URL"] = url
        #expect(try cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001234").status == 0)
        let result = try cli.run("activate", "mybank://activate?serialNumber=SN1")
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try cli.run(executable: "/usr/bin/curl", ["-s", url + "/_sandbox/stats"])
        #expect(stats.stdout == #"{"activationRequests": 1}"#)
    }
}
