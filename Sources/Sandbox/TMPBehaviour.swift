import Foundation

/// The TMP side of the sandbox: how it answers an activation request, chosen by the
/// token reference like a payment sandbox's test cards. References starting with a
/// marker get that marker's behaviour; every other reference is APPROVED.
public enum TMPMarker: String, CaseIterable, Sendable {
    case declined = "SBXDECLINED"
    case failed = "SBXFAILED"
    case serverError = "SBXERROR500"
    case slow = "SBXSLOW"
    case malformed = "SBXMALFORMED"
    case unknownStatus = "SBXUNKNOWN"
    case lowercaseStatus = "SBXLOWERCASE"
    case dropConnection = "SBXDROP"
    case redirect = "SBXREDIRECT"
    case notFound = "SBXNOTFOUND"
    case emptyBody = "SBXEMPTY"

    /// What each marker does, for `tokenctl sandbox --help` and the README.
    public var summary: String {
        switch self {
        case .declined: "200, issuerMobileAppAuthResponse DECLINED"
        case .failed: "200, issuerMobileAppAuthResponse FAILED"
        case .serverError: "HTTP 500"
        case .slow:
            "answers APPROVED only after the slow delay (default 20 s), past the default client timeout (tmp.timeout-ms 15 s)"
        case .malformed: "200 with a body that is not JSON"
        case .unknownStatus: "200 with issuerMobileAppAuthResponse PENDING"
        case .lowercaseStatus: "200 with issuerMobileAppAuthResponse approved (lower case)"
        case .dropConnection: "closes the connection without answering"
        case .redirect: "302 to another address"
        case .notFound: "HTTP 404"
        case .emptyBody: "200 with an empty body"
        }
    }

    static func of(_ reference: String) -> TMPMarker? {
        allCases.first { reference.hasPrefix($0.rawValue) }
    }
}

/// What the sandbox does with one request.
enum SandboxReply {
    case respond(status: Int, headers: [(String, String)], body: String)
    case respondLater(delay: Duration, status: Int, body: String)
    case drop
}

enum TMPBehaviour {
    static let activationPath = "/issuer/push-provisioning/tokens/activations"

    static func reply(toActivation body: [UInt8], slowDelay: Duration) -> SandboxReply {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let reference = object["tokenUniqueReference"] as? String, !reference.isEmpty
        else {
            return json(400, #"{"errorCode": "INVALID_REQUEST", "message": "tokenUniqueReference is required"}"#)
        }
        switch TMPMarker.of(reference) {
        case .declined: return status("DECLINED", reference)
        case .failed: return status("FAILED", reference)
        case .serverError: return json(500, #"{"errorCode": "INTERNAL_ERROR"}"#)
        case .slow: return .respondLater(delay: slowDelay, status: 200, body: answer("APPROVED", reference))
        case .malformed: return json(200, #"{"issuerMobileAppAuthResponse": "APPR"#)
        case .unknownStatus: return status("PENDING", reference)
        case .lowercaseStatus: return status("approved", reference)
        case .dropConnection: return .drop
        case .redirect: return .respond(status: 302, headers: [("Location", "http://127.0.0.1:1/elsewhere")], body: "")
        case .notFound: return json(404, #"{"errorCode": "NOT_FOUND"}"#)
        case .emptyBody: return .respond(status: 200, headers: [], body: "")
        case nil: return status("APPROVED", reference)
        }
    }

    private static func status(_ value: String, _ reference: String) -> SandboxReply {
        json(200, answer(value, reference))
    }

    private static func json(_ status: Int, _ body: String) -> SandboxReply {
        .respond(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// The last four characters of the reference as `cardLast4Digits` when they are digits.
    private static func answer(_ value: String, _ reference: String) -> String {
        let suffix = String(reference.suffix(4))
        let last4 =
            suffix.count == 4 && suffix.allSatisfy(\.isASCIIDigitCharacter) ? #", "cardLast4Digits": "\#(suffix)""# : ""
        return
            #"{"issuerMobileAppAuthResponse": "\#(value)", "tokenUniqueReference": "\#(reference)"\#(last4), "comment": "sandbox"}"#
    }
}

private extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
