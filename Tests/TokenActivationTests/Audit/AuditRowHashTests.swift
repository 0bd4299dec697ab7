import Testing
@testable import TokenActivation

/// The audit chain's hash of a row is a stored fact: databases written by earlier versions
/// must still verify. These hashes come from the code that has written every audit so
/// far; any change to the hashed text changes them.
@Suite struct AuditRowHashTests {
    static let started = AuditRow(
        attemptID: 42, event: .started, at: Timestamp(milliseconds: 1_764_000_000_123), requestID: "8b5f2f0e-1c2d-4e3f-9a8b-7c6d5e4f3a2b",
        serialNumber: "SN1000000001", passTypeIdentifier: "paymentpass.com.apple", tokenUniqueReference: "DAPL4X7Q2M9K00001234",
        device: "iPhone", deeplinkHash: String(repeating: "ab", count: 32), ownerPID: 4242, ownerStart: "987654"
    )
    static let finished = AuditRow(
        attemptID: 42, event: .finished, at: Timestamp(milliseconds: 1_764_000_000_456), requestID: "8b5f2f0e-1c2d-4e3f-9a8b-7c6d5e4f3a2b",
        serialNumber: "SN1000000001", passTypeIdentifier: nil, tokenUniqueReference: "DAPL4X7Q2M9K00001234",
        device: "Work \"iPhone\" 号码\u{202E}", deeplinkHash: String(repeating: "cd", count: 32), outcome: "APPROVED",
        errorCode: nil, httpStatus: 200, cardLast4Digits: "1234", comment: "line\nbreak", latencyMilliseconds: 17
    )

    @Test func theHashOfARowIsFixed() {
        let first = Self.started.hash(previous: AuditRow.genesisHash)
        #expect(first == "d3765ce0d1552f53282f1544ced35be5f4706192497def836e5f92cc8b71aa5a")
        #expect(Self.finished.hash(previous: first) == "25915f268a1e7c302abcdf55eae621a07026e475f3d420302ccd02da3a00f211")
    }
}
