import ErrorCodes
import ServiceAPI
import TextFormats
import TokenActivation
import TokenctlApp
import WalletModel

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
        let message = result.error.map { apiWords(NextStepText.message($0)) }
        let object = result.json(reveal: false, message: message)
        let status = httpStatus(exitCode: result.exitStatus)
        guard status != 200, let error = result.error, let message else { return .success(object) }
        return .failure(
            Problem(status: status, code: error.code, detail: message, result: object, exitCode: result.exitStatus))
    }

    /// A message as an API client reads it: what the command line asks with a flag, the API
    /// asks with a member of the request or the deeplink.
    static func apiWords(_ message: String) -> String {
        message.replacingOccurrences(
            of: "name one with --device or --pass-type-id",
            with: "name one with the request's \"device\" member, or the deeplink's passTypeIdentifier"
        )
    }
}
