import Foundation
import PowerAuth

/// An OTP the simulated onboarding server sent (activation or identity verification): 5
/// attempts, a 5-minute life, and a new one no sooner than 30 s after it.
struct SentOTP {
    static let attempts = 5
    static let lifetime: TimeInterval = 5 * 60
    static let resendPeriod: TimeInterval = 30
    /// The `config` object the server sends with a process and a verification status.
    static var config: [String: Any] {
        ["otpResendPeriod": "PT\(Int(resendPeriod))S", "otpResendPeriodSeconds": Int(resendPeriod)]
    }

    let code: String
    let issuedAt: Date
    var failedAttempts = 0

    func isExpired(now: Date) -> Bool { now.timeIntervalSince(issuedAt) > Self.lifetime }

    func mayResend(now: Date) -> Bool { now.timeIntervalSince(issuedAt) >= Self.resendPeriod }

    /// Compared in constant time.
    func matches(_ candidate: String) -> Bool { Bytes.constantTimeEqual(Bytes.utf8(candidate), Bytes.utf8(code)) }

    var remainingAttempts: Int { Self.attempts - failedAttempts }

    var isExhausted: Bool { failedAttempts >= Self.attempts }
}
