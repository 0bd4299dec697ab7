import Testing
import TextFormats

@testable import WalletModel

/// The audit chain's hash of a row is a stored fact: databases written by earlier versions
/// must still verify. These hashes come from the code that has written every audit so
/// far; any change to the hashed text changes them.
@Suite struct AuditRowHashTests {
    static let started = AuditRow(
        attemptID: 42, event: .started, at: Timestamp(milliseconds: 1_764_000_000_123),
        requestID: "8b5f2f0e-1c2d-4e3f-9a8b-7c6d5e4f3a2b",
        serialNumber: "SN1000000001", passTypeIdentifier: "paymentpass.com.apple",
        tokenUniqueReference: "DAPL4X7Q2M9K00001234",
        device: "iPhone", deeplinkHash: String(repeating: "ab", count: 32), ownerPID: 4242, ownerStart: "987654"
    )
    static let finished = AuditRow(
        attemptID: 42, event: .finished, at: Timestamp(milliseconds: 1_764_000_000_456),
        requestID: "8b5f2f0e-1c2d-4e3f-9a8b-7c6d5e4f3a2b",
        serialNumber: "SN1000000001", passTypeIdentifier: nil, tokenUniqueReference: "DAPL4X7Q2M9K00001234",
        device: "Work \"iPhone\" 号码\u{202E}", deeplinkHash: String(repeating: "cd", count: 32), outcome: "APPROVED",
        errorCode: nil, httpStatus: 200, cardLast4Digits: "1234", comment: "line\nbreak", latencyMilliseconds: 17
    )

    @Test func theHashOfARowIsFixed() {
        let first = Self.started.hash(previous: AuditRow.genesisHash)
        #expect(first == "d3765ce0d1552f53282f1544ced35be5f4706192497def836e5f92cc8b71aa5a")
        #expect(
            Self.finished.hash(previous: first) == "25915f268a1e7c302abcdf55eae621a07026e475f3d420302ccd02da3a00f211")
    }
}

/// The hashed text is written directly; it must stay the JSON object's text of the same
/// members, whatever the values.
@Suite struct AuditRowHashedTextTests {
    static func viaJSONObject(_ row: AuditRow, previous: String) -> [UInt8] {
        Array(
            JSONObject([
                "previous": .string(previous), "attempt": .int(Int(row.attemptID)),
                "event": .string(row.event.rawValue),
                "at": .string(row.at.iso8601), "request": .string(row.requestID), "serial": .string(row.serialNumber),
                "passType": .optional(row.passTypeIdentifier), "token": .optional(row.tokenUniqueReference),
                "device": .optional(row.device), "deeplink": .string(row.deeplinkHash),
                "pid": row.ownerPID.map { .int(Int($0)) } ?? .null, "ownerStart": .optional(row.ownerStart),
                "outcome": .optional(row.outcome), "error": .optional(row.errorCode),
                "http": row.httpStatus.map { .int($0) } ?? .null, "last4": .optional(row.cardLast4Digits),
                "comment": .optional(row.comment), "latency": row.latencyMilliseconds.map { .int($0) } ?? .null,
            ]).text.utf8)
    }

    @Test(arguments: [AuditRowHashTests.started, AuditRowHashTests.finished])
    func isTheJSONObjectsText(row: AuditRow) {
        #expect(row.hashedText(previous: "p\"\\") == Self.viaJSONObject(row, previous: "p\"\\"))
    }

    @Test func randomRowsAgree() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["", "SN1", "Work \"iPhone\"", "号码", "\u{202E}", "tab\there", "\u{7F}", "back\\slash", "é"]
        func text() -> String {
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                .joined()
        }
        func maybe() -> String? { Bool.random(using: &generator) ? text() : nil }
        for _ in 0..<500 {
            let row = AuditRow(
                attemptID: Int64.random(in: -5...Int64.max, using: &generator),
                event: Bool.random() ? .started : .finished,
                at: Timestamp(milliseconds: Int64.random(in: 0...4_000_000_000_000, using: &generator)),
                requestID: text(),
                serialNumber: text(), passTypeIdentifier: maybe(), tokenUniqueReference: maybe(), device: maybe(),
                deeplinkHash: text(), ownerPID: Bool.random() ? Int32.random(in: Int32.min...Int32.max) : nil,
                ownerStart: maybe(),
                outcome: maybe(), errorCode: maybe(), httpStatus: Bool.random() ? Int.random(in: -1...999) : nil,
                cardLast4Digits: maybe(), comment: maybe(),
                latencyMilliseconds: Bool.random() ? Int.random(in: 0...100_000) : nil
            )
            let previous = text()
            #expect(row.hashedText(previous: previous) == Self.viaJSONObject(row, previous: previous))
        }
    }
}
