import ErrorCodes
import TokenActivation
import TokenctlApp
import WalletModel

/// An `application/problem+json` answer (RFC 9457) with the members scripts map:
/// `code`, `exitCode`, and `result` when an activation stands behind it (DESIGN §8).
struct Problem: Error, Sendable {
    let status: Int
    let code: ErrorCode
    let detail: String
    /// The activation's §3 object, when the problem is an activation's answer.
    var result: JSONObject?
    /// The exit status a script maps it to: the activation's when one stands behind it.
    let exitCode: Int
    /// Extra headers: `Allow` for 405, `Retry-After` for 503.
    var headers: [(name: String, value: String)] = []

    init(status: Int, code: ErrorCode, detail: String, result: JSONObject? = nil, exitCode: ExitStatus? = nil) {
        self.status = status
        self.code = code
        self.detail = detail
        self.result = result
        self.exitCode = Int((exitCode ?? code.exitStatus).rawValue)
    }

    var json: JSONObject {
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

    static func invalid(_ detail: String) -> Problem {
        Problem(status: 400, code: .requestInvalid, detail: detail)
    }

    /// The path is not repeated: it may hold an identifier.
    static let notFound = Problem(
        status: 404, code: .requestNotFound,
        detail: "no such path; the API's paths are /v1/activations, /v1/activations/batch, /v1/passes/{serialNumber}, /v1/audit, /livez, /readyz and /metrics"
    )

    static func methodNotAllowed(allowed: [String]) -> Problem {
        var problem = Problem(status: 405, code: .requestMethodNotAllowed, detail: "this path takes \(allowed.joined(separator: " or ")) only")
        problem.headers = [("Allow", allowed.joined(separator: ", "))]
        return problem
    }
}

/// How an activation answer travels over HTTP: its status by the §3 exit code.
enum ActivationStatus {
    /// 0, 2, 3 → 200; 64, 65 → 400; 66 → 404; 75 → 409; 77 → 403; 69, 76 → 502; 74 → 503; 78 → 500.
    static func httpStatus(exitCode: ExitStatus) -> Int {
        switch exitCode {
        case .success, .declined, .failed: 200
        case .usage, .rejectedInput: 400
        case .notFound: 404
        case .temporary: 409
        case .userActivationRequired: 403
        case .unavailable, .protocolError: 502
        case .databaseError: 503
        case .configuration: 500
        }
    }

    /// The answer to one activation: 200 with the §3 object, or a problem carrying it.
    static func answer(_ result: ActivationResult) -> Result<JSONObject, Problem> {
        let object = result.json(reveal: false, message: result.error.map(NextStepText.message))
        let status = httpStatus(exitCode: result.exitStatus)
        guard status != 200, let error = result.error else { return .success(object) }
        return .failure(Problem(status: status, code: error.code, detail: NextStepText.message(error), result: object, exitCode: result.exitStatus))
    }
}
