import ErrorCodes
import TextFormats
import TokenActivation
import WalletModel

/// The human line of an activation.
public enum ActivationText {
    /// What failed when no pass was reached: the deeplink, or what stopped the run before it.
    public static func subject(of code: ErrorCode?) -> String {
        guard let code else { return "deeplink" }
        let namespace = code.rawValue.prefix { $0 != "." }
        switch namespace {
        case "deeplink": return "deeplink"
        case "storage": return "the database (\(code.rawValue))"
        case "config": return "the configuration (\(code.rawValue))"
        case "user", "login", "onboarding", "powerauth": return "the user check (\(code.rawValue))"
        default: return code.rawValue
        }
    }

    public static func line(_ result: ActivationResult, reveal: Bool) -> String {
        let serial =
            result.serialNumber.map { "serial \(Mask.identifier($0, reveal: reveal))" }
            ?? subject(of: result.error?.code)
        let token = result.tokenUniqueReference.map { " token \(Mask.identifier($0, reveal: reveal))" } ?? ""
        if let url = result.wouldSendTo {
            let reference = result.tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) } ?? "-"
            return
                "dry run: would POST tokenUniqueReference \(reference) for \(serial) to \(url); nothing sent or written"
        }
        var details: [String] = []
        if let last4 = result.cardLast4Digits { details.append("card …\(last4)") }
        if let status = result.httpStatus { details.append("HTTP \(status)") }
        if let id = result.auditID { details.append("audit \(id)") }
        let suffix = details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")"
        return
            "\(Colour.outcome(result.outcome.rawValue, outcome: result.outcome.rawValue)): \(serial)\(token)\(suffix)"
    }
}
