import Foundation
import Testing

@testable import Sandbox

/// The simulated server's identity verification, driven by time passed in.
@Suite struct IdentityVerificationTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func document(
        _ id: String, _ type: String, _ side: String = "FRONT", status: String = "VERIFICATION_PENDING",
        endstate: Bool = false, failsPresenceCheck: Bool = false
    ) -> IdentityVerification.Document {
        IdentityVerification.Document(
            id: id, filename: "\(id).jpg", type: type, side: side, status: status,
            errors: status == "REJECTED" ? [IdentityVerification.documentError] : [], endstate: endstate,
            failsPresenceCheck: failsPresenceCheck)
    }

    var requiredSet: [IdentityVerification.Document] {
        [document("f", "ID_CARD"), document("b", "ID_CARD", "BACK"), document("p", "PASSPORT")]
    }

    func pair(_ verification: IdentityVerification) -> String {
        "\(verification.phase.rawValue)/\(verification.status.rawValue)"
    }

    @Test func theRequiredSetRunsToTheOTPWithoutPresenceCheck() {
        var verification = IdentityVerification(now: start)
        verification.submit(requiredSet, replacing: [])
        let issued = verification.advance(now: start, stepInterval: 0, presenceCheck: false) { "12345678" }
        #expect(issued == ["12345678"])
        #expect(pair(verification) == "OTP_VERIFICATION/VERIFICATION_PENDING")
        let result1 = verification.verifyOTP("12345678", now: start)
        #expect(result1 == .verified)
        #expect(pair(verification) == "COMPLETED/ACCEPTED")
    }

    @Test func stepsComeOneAnIntervalApart() {
        var verification = IdentityVerification(now: start)
        verification.submit(requiredSet, replacing: [])
        var seen: [String] = []
        for second in stride(from: 0.0, through: 21, by: 3) {
            _ = verification.advance(now: start.addingTimeInterval(second), stepInterval: 3, presenceCheck: true) {
                "1"
            }
            seen.append(pair(verification))
        }
        #expect(
            seen == [
                "DOCUMENT_UPLOAD/IN_PROGRESS", "DOCUMENT_UPLOAD/VERIFICATION_PENDING", "DOCUMENT_VERIFICATION/ACCEPTED",
                "DOCUMENT_VERIFICATION_FINAL/IN_PROGRESS", "DOCUMENT_VERIFICATION_FINAL/ACCEPTED",
                "CLIENT_EVALUATION/IN_PROGRESS",
                "CLIENT_EVALUATION/ACCEPTED", "PRESENCE_CHECK/NOT_INITIALIZED",
            ])
    }

    @Test func anIncompleteSetGoesBackToUpload() {
        var verification = IdentityVerification(now: start)
        verification.submit([document("p", "PASSPORT")], replacing: [])
        _ = verification.advance(now: start, stepInterval: 0, presenceCheck: true) { "1" }
        #expect(pair(verification) == "DOCUMENT_UPLOAD/IN_PROGRESS")
        #expect(verification.listedDocuments.map(\.status) == ["ACCEPTED"])
    }

    @Test func aReplacedOriginalIsDisposedAndNotListed() {
        var verification = IdentityVerification(now: start)
        verification.submit([document("b", "ID_CARD", "BACK", status: "REJECTED")], replacing: [])
        verification.submit([document("b2", "ID_CARD", "BACK")], replacing: ["b"])
        #expect(verification.listedDocuments.map(\.id) == ["b2"])
        #expect(verification.spentDocuments == 1, "the rejected original, now disposed, counts once")
        #expect(!verification.hasDocument(id: "b"))
    }

    @Test func anEndstateMarkerRejectsAtTheFinalVerification() {
        var verification = IdentityVerification(now: start)
        verification.submit(
            [
                document("f", "ID_CARD", endstate: true), document("b", "ID_CARD", "BACK"),
                document("d", "DRIVING_LICENSE"),
            ], replacing: [])
        _ = verification.advance(now: start, stepInterval: 0, presenceCheck: true) { "1" }
        #expect(pair(verification) == "DOCUMENT_VERIFICATION_FINAL/REJECTED")
    }

    @Test func presenceCheckThenOTPAndAFailedCheckGoesBackOnce() {
        var verification = IdentityVerification(now: start)
        verification.submit(
            [
                document("f", "ID_CARD", failsPresenceCheck: true), document("b", "ID_CARD", "BACK"),
                document("p", "PASSPORT"),
            ], replacing: [])
        _ = verification.advance(now: start, stepInterval: 0, presenceCheck: true) { "1" }
        let result2 = verification.submitPresenceCheck()
        #expect(result2 == false, "submit before init is refused")
        var results: [IdentityVerification.OTPResult] = []
        for code in ["87654321", "12345678"] {
            let started = verification.initPresenceCheck()
            #expect(started == .started)
            let submitted = verification.submitPresenceCheck()
            #expect(submitted)
            #expect(pair(verification) == "PRESENCE_CHECK/VERIFICATION_PENDING")
            _ = verification.advance(now: start, stepInterval: 0, presenceCheck: true) { code }
            results.append(verification.verifyOTP(code, now: start))
        }
        #expect(results == [.presenceCheckFailed, .verified])
        #expect(pair(verification) == "COMPLETED/ACCEPTED")
    }

    @Test func theOTPCountsFailuresExpiresAndHasAResendPeriod() {
        var verification = IdentityVerification(now: start)
        verification.submit(requiredSet, replacing: [])
        _ = verification.advance(now: start, stepInterval: 0, presenceCheck: false) { "11111111" }
        let at = { (seconds: Double) in start.addingTimeInterval(seconds) }
        var results: [String] = []
        results.append("\(verification.resendOTP("22222222", now: at(29)))")
        results.append("\(verification.resendOTP("22222222", now: at(30)))")
        results.append("\(verification.verifyOTP("11111111", now: at(31)))")
        for _ in 0..<4 { results.append("\(verification.verifyOTP("00000000", now: at(32)))") }
        #expect(
            results == [
                "tooEarly", "sent", "wrong(remaining: 4)", "wrong(remaining: 3)", "wrong(remaining: 2)",
                "wrong(remaining: 1)", "exhausted",
            ])

        var late = IdentityVerification(now: start)
        late.submit(requiredSet, replacing: [])
        _ = late.advance(now: start, stepInterval: 0, presenceCheck: false) { "11111111" }
        let expired = late.verifyOTP("11111111", now: at(5 * 60 + 1))
        #expect(expired == .expired)
        var early = IdentityVerification(now: start)
        let notActive = early.verifyOTP("11111111", now: start)
        #expect(notActive == .notActive)
    }
}
