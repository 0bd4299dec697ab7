import Foundation
import GRDB
import TestSupport
import Testing

/// Labels and serials that would reorder or hide text on a terminal are refused at input
/// and escaped on output; wide and long labels keep the wallet table's columns aligned.
@Suite struct LabelSafetyTests {
    let cli = CLI()
    static let override = "x\u{202E}gpj.exe"

    @Test func wallet_addAndImportRefuseBidirectionalOverridesAndStoreNothing() throws {
        let added = try cli.run(
            "wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL1", "--device", Self.override, "--json")
        #expect(added.status == 64)
        #expect(added.errorCode == "wallet.invalidValue")
        #expect(
            added.stderr.contains(
                "device must be 1 to 64 characters without control or bidirectional formatting characters"))
        #expect(!added.stderr.contains("\u{202E}"))
        #expect(
            try cli.run("wallet", "add", "--serial", "SN\u{2066}1", "--device-account-id", "DAPL1", "--json").errorCode
                == "wallet.invalidValue")

        let csv = cli.write(
            "passes.csv", "serialNumber,deviceAccountIdentifier,device\nSN2,DAPL2,iPhone\nSN3,DAPL3,\(Self.override)\n")
        let imported = try cli.run("wallet", "import", csv, "--json")
        #expect(imported.status == 65)
        #expect(imported.errorCode == "import.invalidRow")
        #expect(imported.stderr.contains("line 3"))
        #expect(try cli.run("wallet", "list").stdout == PassTable.header + "0 pass records\n")
    }

    @Test func namesOnTheCommandLineFollowTheLabelRule() throws {
        let login = try cli.run("login", "register", "--identity", "alice@example.com", "--device-name", Self.override)
        #expect(login.status == 64)
        #expect(
            login.stderr.contains(
                "--device-name must be 1 to 64 characters without control or bidirectional formatting characters"))
        let device = try cli.run("device", "activate", "--attribute", "username=alice", "--name", "a\u{2067}b")
        #expect(device.status == 64)
        #expect(device.stderr.contains("--name must be 1 to 64"))
    }

    @Test func aStoredOverrideIsShownEscapedInTextAndJSON() throws {
        #expect(try cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL1").status == 0)
        // A record written by another tool, or before labels were checked.
        let queue = try DatabaseQueue(path: cli.databasePath)
        try queue.write { db in
            try db.execute(
                sql: "UPDATE pass_record SET device_label = ? WHERE serial_number = 'SN1'", arguments: [Self.override])
        }
        for arguments in [
            ["wallet", "list"], ["wallet", "show", "SN1"], ["wallet", "list", "--json"],
            ["wallet", "remove", "SN1", "--device", "other"],
        ] {
            let result = try cli.run(arguments)
            #expect(!(result.stdout + result.stderr).contains("\u{202E}"), "\(arguments)")
        }
        #expect(try cli.run("wallet", "show", "SN1").stdout.contains("device:            x\\u{202E}gpj.exe\n"))
        #expect(try cli.run("wallet", "list").stdout.contains("  x\\u{202E}gpj.e… -     paymentpass.com.apple\n"))
        #expect(try cli.run("wallet", "list", "--json").stdout.contains(#""device": "x\u202egpj.exe""#))
    }

    @Test func wideAndLongLabelsKeepTheColumnsAligned() throws {
        let labels = [
            "Watch", "Work iPhone 号码手机壳", "한국어 라벨이 아주 길어요", "👨‍👩‍👧 family iPad", String(repeating: "L", count: 64),
        ]
        for (index, label) in labels.enumerated() {
            #expect(
                try cli.run(
                    "wallet", "add", "--serial", "SN\(index)", "--device-account-id", "DAPL\(index)", "--device", label
                ).status == 0)
        }
        let lines = try cli.run("wallet", "list").stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == [
                PassTable.header.dropLast().description,
                "…N0               …L0                 requiresActivation  Watch           -     paymentpass.com.apple",
                "…N1               …L1                 requiresActivation  Work iPhone 号… -     paymentpass.com.apple",
                "…N2               …L2                 requiresActivation  한국어 라벨이 … -     paymentpass.com.apple",
                "…N3               …L3                 requiresActivation  👨‍👩‍👧 family iPad  -     paymentpass.com.apple",
                "…N4               …L4                 requiresActivation  LLLLLLLLLLLLLL… -     paymentpass.com.apple",
                "5 pass records",
            ])
        // The whole label is still there for `show` and `--json`.
        #expect(try cli.run("wallet", "show", "SN1").stdout.contains("device:            Work iPhone 号码手机壳\n"))
    }
}

enum PassTable {
    static let header = "SERIAL            DEVICE ACCOUNT ID   STATE               DEVICE          CARD  PASS TYPE\n"
}
