import Foundation
import Testing

/// `--log-format`, `log.format` and the journal's priority prefixes, through the binary.
@Suite struct LogFormatTests {
    let cli = CLI()
    let serial = "SN4417123456789012"
    var deeplink: String { "mybank://activate?serialNumber=\(serial)" }

    @Test func jsonLogLinesAreObjectsAndMaskTheSerial() throws {
        let result = try cli.run(["--log-format", "json", "--log-level", "debug", "activate", "--", deeplink])
        #expect(result.status == 66)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let records = try lines.filter { $0.hasPrefix("{") }.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.count >= 2)
        #expect(
            records.allSatisfy {
                $0["time"] is String && $0["level"] is String && $0["logger"] is String && $0["message"] is String
            })
        #expect(
            records.contains { $0["message"] as? String == "activation.finished" && $0["level"] as? String == "info" })
        // The person's message stays text: it is not a log record.
        #expect(lines.contains { $0.hasPrefix("tokenctl: no pass record matches serial ") })
        #expect(!result.stderr.contains(serial))
    }

    @Test func theConfigurationChoosesTheFormatAndTheFlagWins() throws {
        let file = cli.write("config.json", #"{"log": {"format": "json"}}"#)
        let fromFile = try cli.run(["--config", file, "--log-level", "info", "activate", "--", deeplink])
        #expect(fromFile.stderr.split(separator: "\n").contains { $0.hasPrefix("{\"time\": ") })
        let fromFlag = try cli.run([
            "--config", file, "--log-format", "text", "--log-level", "info", "activate", "--", deeplink,
        ])
        #expect(!fromFlag.stderr.contains("{\"time\""))
        #expect(fromFlag.stderr.contains(" info tokenctl.activation: "))
        let wrong = try cli.run(["--log-format", "xml", "wallet", "list"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.contains("--log-format must be one of text, json"))
    }

    /// Standard error as systemd's journal stream: `$JOURNAL_STREAM` names its device and
    /// inode, and each line starts with its syslog priority.
    @Test func underTheJournalEachLineCarriesItsPriority() throws {
        let journal = "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec \"$0\" \"$@\""
        let result = try cli.run(
            executable: "/bin/sh", ["-c", journal, CLI.binary, "--log-level", "debug", "activate", "--", deeplink])
        #expect(result.status == 66)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("<7>debug tokenctl.activation: ") })
        #expect(lines.contains { $0.hasPrefix("<6>info tokenctl.activation: ") && $0.hasSuffix("activation.finished") })
        #expect(lines.contains { $0.hasPrefix("<3>tokenctl: no pass record matches serial ") })
        #expect(lines.allSatisfy { $0.hasPrefix("<") })

        let json = try cli.run(
            executable: "/bin/sh",
            ["-c", journal, CLI.binary, "--log-format", "json", "--log-level", "info", "activate", "--", deeplink])
        #expect(json.stderr.split(separator: "\n").contains { $0.hasPrefix("<6>{\"time\": ") })

        // A variable inherited by a process whose standard error is elsewhere: plain lines.
        let elsewhere = try cli.run(
            ["--log-level", "info", "activate", "--", deeplink], environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(!elsewhere.stderr.contains("<6>"))
        #expect(elsewhere.stderr.hasPrefix("20"))
    }

    /// A level the flag refuses is refused from the environment too (78), not replaced by
    /// the default.
    @Test func anUnknownLevelInTheEnvironmentIsRefused() throws {
        let result = try cli.run(["wallet", "list"], environment: ["TOKENCTL_LOG_LEVEL": "loud"])
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "tokenctl: environment variable TOKENCTL_LOG_LEVEL: expected one of trace, debug, info, notice, warning, error, critical (config.invalidValue)\n"
        )
        let format = try cli.run(["wallet", "list"], environment: ["TOKENCTL_LOG_FORMAT": "xml"])
        #expect(format.status == 78)
        #expect(format.stderr.contains("environment variable TOKENCTL_LOG_FORMAT: expected text or json"))
        #expect(try cli.run(["wallet", "list"], environment: ["TOKENCTL_LOG_LEVEL": "debug"]).status == 0)
    }
}
