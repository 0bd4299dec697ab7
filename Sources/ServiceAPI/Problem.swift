import ErrorCodes
import TextFormats
import WalletModel

/// An `application/problem+json` answer (RFC 9457) with the members scripts map:
/// `code`, `exitCode`, and `result` when an activation stands behind it (DESIGN §8).
public struct Problem: Error, Sendable {
    public let status: Int
    public let code: ErrorCode
    public let detail: String
    /// The activation's §3 object, when the problem is an activation's answer.
    public var result: JSONObject?
    /// The exit status a script maps it to: the activation's when one stands behind it.
    public let exitCode: Int
    /// Extra headers: `Allow` for 405, `Retry-After` for 503.
    public var headers: [(name: String, value: String)] = []

    public init(status: Int, code: ErrorCode, detail: String, result: JSONObject? = nil, exitCode: ExitStatus? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
        self.result = result
        self.exitCode = Int((exitCode ?? code.exitStatus).rawValue)
    }

    public var json: JSONObject {
        var object = JSONObject([
            "type": .string("urn:tokenctl:error:\(code.rawValue)"),
            "title": .string(code.meaning),
            "status": .int(status),
            "detail": .string(detail),
            "code": .string(code.rawValue),
            "exitCode": .int(exitCode),
        ])
        if let result { object.append("result", .object(result)) }
        return object
    }

    public static func invalid(_ detail: String) -> Problem {
        Problem(status: 400, code: .requestInvalid, detail: detail)
    }

    /// The path is not repeated: it may hold an identifier.
    public static let notFound = Problem(
        status: 404, code: .requestNotFound,
        detail:
            "no such path; the API's paths are /v1/activations, /v1/activations/batch, /v1/passes/{serialNumber}, /v1/audit, /v1/audit/checkpoint, /v1/audit/proof, /v1/audit/consistency, /livez, /readyz and /metrics"
    )

    public static func methodNotAllowed(allowed: [String]) -> Problem {
        var problem = Problem(
            status: 405, code: .requestMethodNotAllowed,
            detail: "this path takes \(allowed.joined(separator: " or ")) only")
        problem.headers = [("Allow", allowed.joined(separator: ", "))]
        return problem
    }
}
