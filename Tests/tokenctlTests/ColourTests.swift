import Foundation
import TestSupport
import Testing

/// Outcome colours on a terminal only, and never with NO_COLOR.
@Suite struct ColourTests {
    /// Runs tokenctl under script(1), which gives it a pseudo-terminal.
    func onATerminal(_ cli: CLI, _ arguments: String, environment: [String: String] = [:]) throws -> String {
        try runProgram(
            "/usr/bin/script", ["-qec", "\(CLI.binary) \(arguments)", "/dev/null"],
            environment: cli.environment.merging(["TERM": "xterm"].merging(environment) { $1 }) { $1 }
        ).output
    }

    @Test func outcomesAreColouredOnATerminalAndPlainOtherwise() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("SNCOL1", "DAPLCOL1")
            try harness.add("SNCOL2", "SBXDECLINEDCOL2")
            let approved = try onATerminal(harness.cli, "activate mybank://activate?serialNumber=SNCOL1")
            #expect(approved.contains("\u{1B}[32mAPPROVED\u{1B}[0m:"), "\(approved.debugDescription)")
            let declined = try onATerminal(harness.cli, "activate mybank://activate?serialNumber=SNCOL2")
            #expect(declined.contains("\u{1B}[31mDECLINED\u{1B}[0m:"), "\(declined.debugDescription)")

            let table = try onATerminal(harness.cli, "audit list")
            #expect(table.contains("\u{1B}[32mAPPROVED\u{1B}[0m"))
            // The colour codes do not shift the columns: the HTTP column starts where the header says.
            let lines = table.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n").map(String.init)
            let header = try #require(lines.first { $0.hasPrefix("ID") })
            let row = try #require(lines.first { $0.contains("APPROVED") })
            let plainRow = row.replacingOccurrences(of: "\u{1B}[32m", with: "").replacingOccurrences(
                of: "\u{1B}[0m", with: "")
            #expect(row != plainRow)
            let httpColumn = try #require(header.range(of: "HTTP")).lowerBound.utf16Offset(in: header)
            let column = String(plainRow.utf16.dropFirst(httpColumn).prefix(3)).map { String($0) } ?? ""
            #expect(column == "200", "\(header.debugDescription)\n\(plainRow.debugDescription)")

            let noColour = try onATerminal(harness.cli, "audit list", environment: ["NO_COLOR": "1"])
            #expect(!noColour.contains("\u{1B}["), "\(noColour.debugDescription)")
            let piped = try harness.cli.run("audit", "list")
            #expect(!piped.stdout.contains("\u{1B}["))
        }
    }
}
