import ErrorCodes
import TextFormats

extension JSONObject {
    /// The documented error object of every `--json` output: `{"code": …, "message": …}`,
    /// with the attempts a PIN has left when a login error says so.
    public static func error(code: ErrorCode, message: String, attemptsLeft: Int? = nil) -> JSONObject {
        var object = JSONObject(["code": .string(code.rawValue), "message": .string(message)])
        if let attemptsLeft { object.append("attemptsLeft", .int(attemptsLeft)) }
        return object
    }
}
