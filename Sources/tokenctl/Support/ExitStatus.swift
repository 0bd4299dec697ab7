import TokenActivation

/// The one place where outcomes and error codes become process exit codes (DESIGN.md §2).
enum ExitStatus {
    static func code(for result: ActivationResult) -> Int32 {
        switch result.outcome {
        case .approved, .alreadyActivated, .dryRun: 0
        case .declined: 2
        case .failed: 3
        case .unknown, .error: result.error.map { code(forError: $0.code) } ?? 70
        }
    }

    /// Severity order for a batch, most severe first (DESIGN.md §2).
    static let severity: [Int32] = [78, 74, 69, 76, 75, 77, 66, 65, 3, 2, 0]

    /// The more severe of two exit codes.
    static func mostSevere(_ a: Int32, _ b: Int32) -> Int32 {
        let rank = { (code: Int32) in severity.firstIndex(of: code) ?? 0 }
        return rank(a) <= rank(b) ? a : b
    }

    static func code(forError code: String) -> Int32 {
        switch code {
        case "tmp.redirect", "tmp.unexpectedStatus", "tmp.invalidBody", "tmp.unknownStatus", "powerauth.protocol": 76
        case "powerauth.unreachable", "powerauth.serverError": 69
        case "onboarding.otpInvalid": 2
        case "onboarding.processFailed": 3
        case "onboarding.cannotActivate": 65
        case "onboarding.notRunning": 66
        case "onboarding.inProgress", "onboarding.resendTooEarly", "onboarding.limitReached": 75
        case "onboarding.unreachable", "onboarding.tls", "onboarding.serverError": 69
        case "onboarding.protocol": 76
        case "powerauth.notActivated", "powerauth.rejected", "powerauth.authFailed": 77
        case "powerauth.alreadyActivated": 65
        case "powerauth.invalidPIN", "powerauth.unsupportedFactor": 64
        case _ where code.hasPrefix("tmp."): 69
        case "activation.inProgress", "storage.busy": 75
        case "user.activationRequired": 77
        case _ where code.hasPrefix("deeplink."): 65
        case "wallet.notActivatable", "audit.notFound": 66
        case "audit.chainBroken": 65
        case _ where code.hasPrefix("storage."): 74
        case _ where code.hasPrefix("config."): 78
        case "wallet.notFound", "wallet.ambiguous": 66
        case "wallet.invalidValue", "usage.invalid": 64
        case "wallet.duplicate", "wallet.conflict": 65
        case _ where code.hasPrefix("import."): 65
        default: 70
        }
    }
}
