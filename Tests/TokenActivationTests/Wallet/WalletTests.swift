import Foundation
import GRDB
import Storage
import Testing
import TokenctlApp
import TokenctlConfiguration
import WalletModel

@testable import TokenActivation

@Suite struct WalletTests {
    let directory = TemporaryDirectory()
    let wallet: Wallet

    init() {
        var settings = Settings.builtIn(environment: ["HOME": directory.path])
        settings.database.path = directory.file("wallet.sqlite")
        settings.database.createsDirectory = false
        wallet = Wallet(settings: settings)
    }

    func all() async throws -> [PassRecord] {
        var records: [PassRecord] = []
        try await wallet.forEach { records.append($0) }
        return records
    }

    @discardableResult
    func importText(
        _ text: String, format: WalletFileFormat? = nil, name: String = "passes.csv"
    ) async throws -> ImportSummary {
        let path = directory.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return try await wallet.importRecords(from: .file(path), format: format)
    }

    @Test func addShowAndRemoveAPairedIPhoneAndWatch() async throws {
        try await wallet.add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPLPHONE1", device: "iPhone"))
        try await wallet.add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPLWATCH1", device: "Watch"))

        #expect(try await wallet.show(PassQuery(serialNumber: "SN1")).map(\.device) == ["iPhone", "Watch"])
        #expect(
            try await wallet.show(PassQuery(serialNumber: "SN1", device: "Watch")).map(\.deviceAccountIdentifier) == [
                "DAPLWATCH1"
            ])

        let ambiguous = try await #require(throws: WalletError.self) {
            try await wallet.remove(PassQuery(serialNumber: "SN1"))
        }
        #expect(ambiguous.code.rawValue == "wallet.ambiguous")
        #expect(try await all().count == 2)

        #expect(
            try await wallet.remove(PassQuery(serialNumber: "SN1", device: "Watch")).deviceAccountIdentifier
                == "DAPLWATCH1")
        #expect(try await all().map(\.deviceAccountIdentifier) == ["DAPLPHONE1"])
        let gone = try await #require(throws: WalletError.self) {
            try await wallet.remove(PassQuery(serialNumber: "SN1", device: "Watch"))
        }
        #expect(gone.code.rawValue == "wallet.notFound")
    }

    @Test func addingTwiceIsADuplicateAndAnotherIdForTheSameDeviceIsAConflict() async throws {
        try await wallet.add(PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL1", device: "iPhone"))
        let duplicate = try await #require(throws: WalletError.self) {
            try await wallet.add(
                PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL1", device: "Other"))
        }
        #expect(duplicate.code.rawValue == "wallet.duplicate")
        let conflict = try await #require(throws: WalletError.self) {
            try await wallet.add(
                PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL2", device: "iPhone"))
        }
        #expect(conflict.code.rawValue == "wallet.conflict")
        #expect(!conflict.message.contains("DAPL1"))
    }

    @Test func showOfAnUnknownSerialIsNotFound() async throws {
        let error = try await #require(throws: WalletError.self) {
            try await wallet.show(PassQuery(serialNumber: "SN-UNKNOWN-1"))
        }
        #expect(error.code.rawValue == "wallet.notFound")
        #expect(error.message == "no pass record matches serial SN-U…WN-1")
    }

    @Test func importUpsertsAndKeepsStoredValuesThatARowDoesNotGive() async throws {
        try await importText(
            """
            serialNumber,deviceAccountIdentifier,state,device,cardSuffix
            SN1,DAPL1,activated,iPhone,1234
            SN2,DAPL2,,Watch,
            """)
        let summary = try await importText(
            """
            serialNumber,deviceAccountIdentifier,cardSuffix
            SN1,DAPL1,9999
            SN3,DAPL3,
            """)
        #expect(summary == ImportSummary(rows: 2, inserted: 1, updated: 1))
        await #expect(
            try all() == [
                PassRecord(
                    serialNumber: "SN1", deviceAccountIdentifier: "DAPL1", state: .activated, device: "iPhone",
                    cardSuffix: "9999"),
                PassRecord(serialNumber: "SN2", deviceAccountIdentifier: "DAPL2", device: "Watch"),
                PassRecord(serialNumber: "SN3", deviceAccountIdentifier: "DAPL3"),
            ])
    }

    @Test(arguments: [
        (
            "serialNumber,deviceAccountIdentifier\nSN1,DAPL1\n,DAPL2\n", 3, "serialNumber is required",
            "import.invalidRow"
        ),
        (
            "serialNumber,deviceAccountIdentifier,state\nSN1,DAPL1,activated\nSN2,DAPL2,done\n", 3,
            "state must be one of", "import.invalidRow"
        ),
        (
            "serialNumber,deviceAccountIdentifier\nSN1,DAPL1\n\(String(repeating: "S", count: 129)),DAPL2\n", 3,
            "serialNumber must be 1 to 128 bytes", "import.invalidRow"
        ),
        (
            "serialNumber,deviceAccountIdentifier,device\nSN1,DAPL1,Watch\nSN1,DAPL2,Watch\n", 3,
            "is already bound to another device account id", "import.conflict"
        ),
        (
            "serialNumber,deviceAccountIdentifier\nSN1,DAPL1\nSN2\n", 3, "expected 2 fields as in the header, found 1",
            "import.invalidRow"
        ),
        (
            "serialNumber,deviceAccountIdentifier,colour\nSN1,DAPL1,red\n", 1, "unknown column \"colour\"",
            "import.invalidHeader"
        ),
        (
            "serialNumber,state\nSN1,activated\n", 1, "lacks the required column deviceAccountIdentifier",
            "import.invalidHeader"
        ),
        ("", 1, "the file is empty", "import.invalidHeader"),
    ])
    func aBadRowRejectsTheWholeFile(text: String, line: Int, reason: String, code: String) async throws {
        try await wallet.add(PassRecordFields(serialNumber: "SN0", deviceAccountIdentifier: "DAPL0"))
        let before = try await all()
        let error = try await #require(throws: ImportError.self) { try await importText(text) }
        #expect(error.code.rawValue == code)
        #expect(error.line == line)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(try await all() == before)
    }

    @Test func invalidUTF8RejectsTheWholeFile() async throws {
        let path = directory.file("bad.csv")
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data("serialNumber,deviceAccountIdentifier\nSN1,DAPL1\n".utf8)
                + Data([0x53, 0xC3, 0x28, 0x2C, 0x44, 0x0A]))
        let error = try await #require(throws: ImportError.self) { try await wallet.importRecords(from: .file(path)) }
        #expect(error.line == 3)
        #expect(error.message.hasSuffix("invalid UTF-8"))
        #expect(try await all().isEmpty)
    }

    @Test func importsJSONLines() async throws {
        let summary = try await importText(
            """
            {"serialNumber": "SN1", "deviceAccountIdentifier": "DAPL1", "device": "iPhone", "cardSuffix": "1234"}

            {"serialNumber": "SN1", "deviceAccountIdentifier": "DAPL2", "device": "Watch", "state": null}
            """, name: "passes.jsonl")
        #expect(summary.rows == 2)
        #expect(try await all().map(\.device) == ["iPhone", "Watch"])
    }

    @Test(arguments: [
        (
            "{\"serialNumber\": \"SN1\", \"deviceAccountIdentifier\": \"DAPL1\", \"cardSuffix\": 1234}",
            "cardSuffix must be a string or null"
        ),
        (
            "{\"serialNumber\": \"SN1\", \"deviceAccountIdentifier\": \"DAPL1\", \"serial\": \"x\"}",
            "unknown key \"serial\""
        ),
        ("[\"SN1\", \"DAPL1\"]", "not a JSON object"),
        ("{\"serialNumber\": \"SN1\"", "not a JSON object"),
        ("{\"deviceAccountIdentifier\": \"DAPL1\"}", "serialNumber is required"),
    ])
    func aBadJSONLineRejectsTheWholeFile(line: String, reason: String) async throws {
        let error = try await #require(throws: ImportError.self) {
            try await importText(
                "{\"serialNumber\": \"SN9\", \"deviceAccountIdentifier\": \"DAPL9\"}\n" + line + "\n", format: .jsonl,
                name: "x")
        }
        #expect(error.line == 2)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(try await all().isEmpty)
    }

    @Test func theFormatIsSniffedWithoutAnExtension() async throws {
        try await importText(#"{"serialNumber": "SN1", "deviceAccountIdentifier": "DAPL1"}"#, name: "noext")
        try await importText("serialNumber,deviceAccountIdentifier\nSN2,DAPL2\n", name: "noext2")
        #expect(try await all().count == 2)
    }

    @Test(arguments: [WalletFileFormat.csv, .jsonl])
    func exportRoundTripsThroughImport(format: WalletFileFormat) async throws {
        try await wallet.add(
            PassRecordFields(
                serialNumber: "SN,\"quoted\" é", deviceAccountIdentifier: "DAPL1", state: "suspended",
                device: "Watch, 45mm", cardSuffix: "00042"))
        try await wallet.add(
            PassRecordFields(serialNumber: "SN2", deviceAccountIdentifier: "DAPL2", passTypeIdentifier: "other.type"))
        let original = try await all()
        var text = ""
        try await wallet.export(format: format) { text += $0 }
        #expect(text.contains("DAPL1"))  // a backup keeps whole values

        var settings = Settings.builtIn(environment: [:])
        settings.database.path = directory.file("restored.sqlite")
        settings.database.createsDirectory = false
        let restored = Wallet(settings: settings)
        let path = directory.file("backup")
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        _ = try await restored.importRecords(from: .file(path), format: format)
        var records: [PassRecord] = []
        try await restored.forEach { records.append($0) }
        #expect(records == original)
    }
}
