import Foundation
import TestSupport
import Testing

@Suite struct WalletImportCommandTests {
    let cli = CLI()

    func rows(_ count: Int, prefix: String = "SN") -> String {
        "serialNumber,deviceAccountIdentifier,device,cardSuffix\n"
            + (0..<count).map { "\(prefix)\($0),DAPL\(prefix)\($0),iPhone,\(1000 + $0 % 9000)\n" }.joined()
    }

    func count() throws -> Int {
        try #require(try cli.run("wallet", "list", "--json").json() as? [Any]).count
    }

    @Test func importsAFileAndReportsWhatChanged() throws {
        let file = cli.write("passes.csv", rows(3))
        let first = try cli.run("wallet", "import", file)
        #expect(first.status == 0)
        #expect(first.stdout == "imported 3 rows: 3 new, 0 updated, 0 unchanged\n")
        let again = try cli.run("wallet", "import", file, "--json")
        #expect(again.stdout == "{\"rows\": 3, \"inserted\": 0, \"updated\": 0, \"unchanged\": 3, \"keptStates\": 0}\n")
        let changed = try cli.run(
            "wallet", "import",
            cli.write(
                "changed.csv", "serialNumber,deviceAccountIdentifier,state\nSN1,DAPLSN1,activated\nSN9,DAPLSN9,\n"))
        #expect(changed.stdout == "imported 2 rows: 1 new, 1 updated, 0 unchanged\n")
        #expect(try count() == 4)
    }

    @Test func readsStandardInputWithAFormat() throws {
        let result = try cli.run(
            ["wallet", "import", "-", "--format", "jsonl"],
            stdin: #"{"serialNumber": "SN1", "deviceAccountIdentifier": "DAPL1"}"# + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try count() == 1)
    }

    @Test(arguments: [
        (
            "missing required field", "serialNumber,deviceAccountIdentifier\nSN1,DAPL1\nSN2,\n", 3,
            "deviceAccountIdentifier is required"
        ),
        ("unknown state", "serialNumber,deviceAccountIdentifier,state\nSN1,DAPL1,pending\n", 2, "state must be one of"),
        (
            "over-long value", "serialNumber,deviceAccountIdentifier\nSN1,\(String(repeating: "A", count: 65))\n", 2,
            "deviceAccountIdentifier must be 1 to 64"
        ),
        (
            "duplicate serial and device",
            "serialNumber,deviceAccountIdentifier,device\nSN1,DAPL1,Watch\nSN2,DAPL2,Watch\nSN1,DAPL3,Watch\n", 4,
            "already bound to another device account id"
        ),
        ("bad quoting", "serialNumber,deviceAccountIdentifier\n\"SN1,DAPL1\n", 2, "a quoted value is not closed"),
    ])
    func aBadRowExits65WithItsLineAndWritesNothing(name: String, text: String, line: Int, reason: String) throws {
        try cli.run("wallet", "add", "--serial", "SN0", "--device-account-id", "DAPL0")
        let result = try cli.run("wallet", "import", cli.write("bad.csv", text), "--json")
        #expect(result.status == 65, "\(name)")
        let error = try #require(try result.jsonObject()["error"] as? [String: Any])
        let message = try #require(error["message"] as? String)
        #expect(message.contains("line \(line): "), "\(name): \(message)")
        #expect(message.contains(reason), "\(name): \(message)")
        #expect(message.contains("nothing was written"))
        #expect(result.stderr.contains("line \(line)"))
        #expect(try count() == 1, "\(name)")
    }

    /// Into an empty wallet, a file's device index is built after its rows; when the index
    /// refuses them, the import runs again row by row and names the line, as it does for
    /// standard input (read once, row by row) and for a wallet that is not empty.
    @Test(arguments: [false, true])
    func aLabelBoundTwiceIntoAnEmptyWalletNamesItsLine(fromStandardInput: Bool) throws {
        let text =
            "serialNumber,deviceAccountIdentifier,device\nSN1,DAPL1,Watch\nSN2,DAPL2,Watch\nSN2,DAPL2,iPhone\nSN1,DAPL3,Watch\n"
        let result =
            fromStandardInput
            ? try cli.run(["wallet", "import", "-", "--format", "csv"], stdin: text)
            : try cli.run("wallet", "import", cli.write("twice.csv", text))
        #expect(result.status == 65)
        #expect(result.stderr.contains("line 5: "), "\(result.stderr)")
        #expect(result.stderr.contains("already bound to another device account id"))
        #expect(try count() == 0)

        // The index is in place afterwards: a later record cannot take a bound label.
        #expect(try cli.run("wallet", "import", cli.write("good.csv", rows(3))).status == 0)
        let taken = try cli.run(
            "wallet", "add", "--serial", "SN1", "--device-account-id", "DAPLX", "--device", "iPhone")
        #expect(taken.status != 0)
        #expect(try count() == 3)
    }

    @Test func invalidUTF8Exits65WithItsLine() throws {
        let bytes =
            Data("serialNumber,deviceAccountIdentifier\nSN1,DAPL1\n".utf8) + Data([0xFF, 0xFE, 0x2C, 0x44, 0x0A])
        let result = try cli.run(["wallet", "import", cli.write("bad.csv", bytes)])
        #expect(result.status == 65)
        #expect(result.stderr.contains("line 3: invalid UTF-8"))
        #expect(try count() == 0)
    }

    @Test func aMissingFileExits65() throws {
        let result = try cli.run("wallet", "import", cli.directory.file("nope.csv"), "--json")
        #expect(result.status == 65)
        #expect((try result.jsonObject()["error"] as? [String: Any])?["code"] as? String == "import.unreadable")
    }

    @Test func exportRoundTripsThroughImport() throws {
        _ = try cli.run("wallet", "import", cli.write("passes.csv", rows(5)))
        try cli.run("wallet", "add", "--serial", "SN,\"x\"", "--device-account-id", "DAPLX", "--state", "suspended")
        for format in ["csv", "jsonl"] {
            let export = try cli.run("wallet", "export", "--format", format)
            #expect(export.status == 0)
            #expect(export.stdout.contains("DAPLSN4"))  // whole values: it is a backup
            var restored = cli
            restored.environment["TOKENCTL_DATABASE_PATH"] = cli.directory.file("restored-\(format).sqlite")
            #expect(try restored.run(["wallet", "import", "-", "--format", format], stdin: export.stdout).status == 0)
            #expect(try restored.run("wallet", "export", "--format", format).stdout == export.stdout)
        }
    }

    @Test func noProgressBarWhenPiped() throws {
        let result = try cli.run("wallet", "import", cli.write("passes.csv", rows(20_000)))
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
    }

    @Test func aProgressBarOnATerminal() throws {
        // script(1) gives tokenctl a pseudo-terminal, as an operator's shell would.
        let file = cli.write("passes.csv", rows(100_000))
        let command = "\(CLI.binary) wallet import \(file)"
        let (status, screen) = try runProgram(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: cli.environment)
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("importing ["))
        #expect(screen.contains("100%"))
        #expect(screen.contains("\u{1B}[K"))
        #expect(screen.contains("imported 100000 rows"))
    }

    @Test func processesCreatingTheSameNewDatabaseAtOnceAllSucceed() throws {
        for round in 0..<5 {
            var fresh = cli
            fresh.environment["TOKENCTL_DATABASE_PATH"] = cli.directory.file("fresh-\(round).sqlite")
            let running = try (0..<4).map { index in
                try fresh.start(["wallet", "add", "--serial", "SN\(index)", "--device-account-id", "DAPL\(index)"])
            }
            for result in try running.map({ try $0.finish() }) {
                #expect(result.status == 0, "round \(round): \(result.stderr)")
                #expect(result.stderr.isEmpty)
            }
            #expect(try #require(try fresh.run("wallet", "list", "--json").json() as? [Any]).count == 4)
        }
    }

    @Test func twoProcessesImportingIntoOneFileBothSucceed() throws {
        try cli.run("wallet", "list")  // create the database
        let first = try cli.start(["wallet", "import", cli.write("a.csv", rows(50_000, prefix: "A"))])
        let second = try cli.start(["wallet", "import", cli.write("b.csv", rows(50_000, prefix: "B"))])
        let results = try [first.finish(), second.finish()]
        for result in results {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("locked"))
        }
        #expect(try count() == 100_000)
    }

    /// The input a long fuzz run found: a double quote followed by a combining mark (U+0653)
    /// in a value. The export doubles the quote, and importing the export gives the same rows.
    @Test func anExportWithAQuoteBeforeACombiningMarkImportsBack() throws {
        let cli = CLI()
        let input = cli.write(
            "in.csv",
            Data(
                "serialNumber,deviceAccountIdentifier,passTypeIdentifier\r\n\"SN,\"\"\u{0653}%3\"\"\",IDa,2APpymentpaSN9\r\n"
                    .utf8))
        let first = try cli.run("--database", cli.directory.file("w.sqlite"), "wallet", "import", input)
        #expect(first.status == 0, "\(first.stderr)")
        let exported = try cli.run("--database", cli.directory.file("w.sqlite"), "wallet", "export", "--reveal")
        #expect(exported.status == 0)
        let out = cli.write("out.csv", exported.stdout)
        let second = try cli.run("--database", cli.directory.file("w2.sqlite"), "wallet", "import", out)
        #expect(second.status == 0, "\(second.stderr)")
        let again = try cli.run("--database", cli.directory.file("w2.sqlite"), "wallet", "export", "--reveal")
        #expect(again.stdout == exported.stdout)
        let rows = try #require(
            try cli.run("--database", cli.directory.file("w2.sqlite"), "wallet", "list", "--json", "--reveal").json()
                as? [[String: Any]])
        #expect(rows.first?["serialNumber"] as? String == "SN,\"\u{0653}%3\"")
    }
}
