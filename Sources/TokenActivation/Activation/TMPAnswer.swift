import ErrorCodes
import Foundation
import HTTPTransport

/// What TMP's answer (or its absence) means, per the contract: a 2xx JSON body whose
/// `issuerMobileAppAuthResponse` is exactly APPROVED, DECLINED or FAILED is a business
/// result; a 5xx or a request sent without an answer is UNKNOWN; everything else is a
/// protocol error (ERROR) that keeps the HTTP status.
struct TMPAnswer: Sendable, Equatable {
    static let maximumCommentLength = 256

    var outcome: Outcome
    var error: ActivationError?
    var httpStatus: Int?
    var cardLast4Digits: String?
    var comment: String?

    init(
        outcome: Outcome, error: ActivationError? = nil, httpStatus: Int? = nil, cardLast4Digits: String? = nil,
        comment: String? = nil
    ) {
        self.outcome = outcome
        self.error = error
        self.httpStatus = httpStatus
        self.cardLast4Digits = cardLast4Digits
        self.comment = comment
    }

    init(_ response: HTTPResponse) {
        let status = response.status
        switch status {
        case 200..<300:
            self = Self.decode(response.body, status: status)
        case 300..<400:
            self.init(
                outcome: .error,
                error: ActivationError(
                    code: .tmpRedirect,
                    message: "TMP answered with a redirect (HTTP \(status)); redirects are not followed"),
                httpStatus: status)
        case 500..<600:
            self.init(
                outcome: .unknown,
                error: ActivationError(
                    code: .tmpServerError,
                    message: "TMP failed with HTTP \(status); the activation may or may not have happened"),
                httpStatus: status)
        default:
            self.init(
                outcome: .error,
                error: ActivationError(code: .tmpUnexpectedStatus, message: "TMP answered HTTP \(status)"),
                httpStatus: status)
        }
    }

    init(_ error: TransportError) {
        let message =
            error.wasSent
            ? "TMP did not answer (\(error.words)); the request was sent, so the activation may or may not have happened"
            : "TMP could not be reached (\(error.words)); nothing was sent"
        self.init(
            outcome: error.wasSent ? .unknown : .error,
            error: ActivationError(code: Self.code(error.kind), message: message))
    }

    /// TMP's code for a transport failure.
    static func code(_ kind: TransportError.Kind) -> ErrorCode {
        switch kind {
        case .connectionRefused: .tmpConnectionRefused
        case .dnsFailure: .tmpDNSFailure
        case .connectTimeout: .tmpConnectTimeout
        case .tls: .tmpTLS
        case .tlsFiles: .configTLSFiles
        case .timeout: .tmpTimeout
        case .connectionLost: .tmpConnectionLost
        case .responseTooLarge: .tmpResponseTooLarge
        case .other: .tmpTransport
        }
    }

    private static func decode(_ body: [UInt8], status: Int) -> TMPAnswer {
        func protocolError(_ code: ErrorCode, _ message: String) -> TMPAnswer {
            TMPAnswer(outcome: .error, error: ActivationError(code: code, message: message), httpStatus: status)
        }
        guard !body.isEmpty else {
            return protocolError(.tmpInvalidBody, "TMP answered HTTP \(status) with an empty body")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return protocolError(.tmpInvalidBody, "TMP answered HTTP \(status) with a body that is not a JSON object")
        }
        guard let value = object["issuerMobileAppAuthResponse"] as? String else {
            return protocolError(.tmpInvalidBody, "TMP's answer has no issuerMobileAppAuthResponse")
        }
        let outcome: Outcome
        switch value {
        case "APPROVED": outcome = .approved
        case "DECLINED": outcome = .declined
        case "FAILED": outcome = .failed
        default:
            return protocolError(
                .tmpUnknownStatus,
                "TMP answered an unknown issuerMobileAppAuthResponse (expected APPROVED, DECLINED or FAILED)")
        }
        return TMPAnswer(
            outcome: outcome, httpStatus: status, cardLast4Digits: lastFour(object["cardLast4Digits"]),
            comment: sanitized(object["comment"]))
    }

    /// Exactly four ASCII digits, else dropped.
    static func lastFour(_ value: Any?) -> String? {
        guard let text = value as? String, text.utf8.count == 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return text
    }

    /// Control characters removed, cut to 256 Unicode scalars (not `Character`s, which may
    /// each hold any number of scalars: the cut bounds what is stored).
    static func sanitized(_ value: Any?) -> String? {
        guard let text = value as? String else { return nil }
        let kept = text.unicodeScalars.filter {
            $0.value >= 0x20 && $0.value != 0x7F && !($0.value >= 0x80 && $0.value < 0xA0)
        }
        return String(String.UnicodeScalarView(kept.prefix(maximumCommentLength)))
    }
}
