import ErrorCodes
import Foundation
import TextFormats
import TokenActivation
import WalletModel

/// What a client asks of `POST /v1/activations`, read from its body: the request decoder
/// the fuzzer drives. Reading never writes anything; a request it refuses is a
/// ``Problem`` with status 400, 413 or 415.
public struct ActivationRequest: Sendable, Equatable {
    public var deeplink: String
    public var device: String?
    public var dryRun: Bool

    public init(deeplink: String, device: String?, dryRun: Bool) {
        self.deeplink = deeplink
        self.device = device
        self.dryRun = dryRun
    }

    /// The largest body the API reads: 64 KiB.
    public static let maximumBodyBytes = 65_536
    /// The longest Idempotency-Key.
    public static let maximumKeyLength = 255

    /// The members a request may hold; any other is refused by name.
    static let members = ["deeplink", "device", "dryRun"]

    private struct Body: Decodable {
        var deeplink: String?
        var device: String?
        var dryRun: Bool?

        private struct Member: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Member.self)
            if let unknown = container.allKeys.first(where: { !ActivationRequest.members.contains($0.stringValue) }) {
                throw UnknownMember(name: unknown.stringValue)
            }
            deeplink = try container.decodeIfPresent(String.self, forKey: Member(stringValue: "deeplink"))
            device = try container.decodeIfPresent(String.self, forKey: Member(stringValue: "device"))
            dryRun = try container.decodeIfPresent(Bool.self, forKey: Member(stringValue: "dryRun"))
        }
    }

    private struct UnknownMember: Error {
        let name: String
    }

    /// Decodes a single activation's JSON body.
    /// - Parameter contentType: the request's `Content-Type`; `application/json` (any charset).
    public static func decode(_ body: [UInt8], contentType: String?) throws(Problem) -> ActivationRequest {
        guard let contentType, MediaType(contentType)?.isJSON == true else {
            throw Problem(
                status: 415, code: .requestUnsupportedMediaType,
                detail: "send the body as Content-Type: application/json")
        }
        guard body.count <= maximumBodyBytes else {
            throw Problem(status: 413, code: .requestTooLarge, detail: "the body is over \(maximumBodyBytes) bytes")
        }
        return try decodeObject(body)
    }

    /// One `{"deeplink": …}` object (a JSON body, or one line of an NDJSON batch).
    public static func decodeObject(_ bytes: some Collection<UInt8>) throws(Problem) -> ActivationRequest {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch let unknown as UnknownMember {
            let name =
                unknown.name.unicodeScalars.count > 64
                ? String(String.UnicodeScalarView(unknown.name.unicodeScalars.prefix(64))) + "…" : unknown.name
            throw .invalid(
                "the body has a member the API does not know: \(JSONObject.Value.string(name).text); the members are \(members.map { "\"\($0)\"" }.joined(separator: ", "))"
            )
        } catch DecodingError.typeMismatch(let type, let context) where !context.codingPath.isEmpty {
            let member = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw .invalid("\"\(member)\" must be \(type == Bool.self ? "true or false" : "a string")")
        } catch {
            throw .invalid("the body is not a JSON object of the form {\"deeplink\": \"…\"}")
        }
        guard let deeplink = body.deeplink else { throw .invalid("the body has no \"deeplink\" member") }
        if let device = body.device, device.isEmpty { throw .invalid("\"device\" must not be empty") }
        return ActivationRequest(deeplink: deeplink, device: body.device, dryRun: body.dryRun ?? false)
    }

    /// What an Idempotency-Key's hash covers: the whole request, so that a repeat differing
    /// in `device` or `dryRun` is told apart. The scheme is compared without case, as the
    /// parser compares it; a plain request's text is its deeplink alone.
    public var idempotencyText: String {
        var text = Self.schemeLowercased(deeplink)
        if device != nil || dryRun {
            text += "\u{0}device=\(device ?? "")\u{0}dryRun=\(dryRun)"
        }
        return text
    }

    /// The deeplink with its scheme (the letters, digits, `+`, `-` and `.` before the first
    /// `:`) in lower case.
    static func schemeLowercased(_ deeplink: String) -> String {
        let bytes = Array(deeplink.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[..<colon].allSatisfy({
                $0 < 0x80
                    && (Character(Unicode.Scalar($0)).isLetter || Character(Unicode.Scalar($0)).isNumber || $0 == 0x2B
                        || $0 == 0x2D || $0 == 0x2E)
            })
        else { return deeplink }
        return String(
            decoding: bytes[..<colon].map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 } + bytes[colon...],
            as: UTF8.self)
    }

    /// Checks an `Idempotency-Key` header: 1 to 255 visible ASCII characters.
    public static func idempotencyKey(_ value: String?) throws(Problem) -> String? {
        guard let value else { return nil }
        guard !value.isEmpty, value.utf8.count <= maximumKeyLength,
            value.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw .invalid("Idempotency-Key must be 1 to \(maximumKeyLength) visible ASCII characters")
        }
        return value
    }
}

/// The two forms of a batch body: a deeplink a line, or an `{"deeplink": …}` object a line.
public enum BatchFormat: Sendable {
    case text
    case ndjson

    public init(contentType: String?) throws(Problem) {
        switch contentType.flatMap(MediaType.init)?.essence {
        case "text/plain": self = .text
        case "application/x-ndjson": self = .ndjson
        default:
            throw Problem(
                status: 415, code: .requestUnsupportedMediaType,
                detail: "send the batch as text/plain (a deeplink a line) or application/x-ndjson (an object a line)")
        }
    }

    /// What one non-blank line asks for: a deeplink alone, or an object with the single
    /// request's members (`deeplink`, optional `device` and `dryRun`); a line that cannot be
    /// read is its own result.
    public func batchLine(_ line: [UInt8]) -> ActivationRuntime.BatchLine {
        switch self {
        case .text:
            return .deeplink(line, dryRun: false)
        case .ndjson:
            do throws(Problem) {
                let request = try ActivationRequest.decodeObject(line)
                return .request(deeplink: request.deeplink, device: request.device, dryRun: request.dryRun)
            } catch {
                return .answered(.notRun(ActivationError(code: error.code, message: error.detail)))
            }
        }
    }
}

/// A `Content-Type` value: its essence (type/subtype, lowercased) without parameters.
public struct MediaType: Equatable {
    public let essence: String

    public init?(_ value: String) {
        let essence =
            value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            } ?? ""
        guard essence.split(separator: "/").count == 2 else { return nil }
        self.essence = essence
    }

    public var isJSON: Bool { essence == "application/json" }
}
