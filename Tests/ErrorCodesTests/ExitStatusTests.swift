import ErrorCodes
import Testing

typealias ExitStatus = ErrorCodes.ExitStatus

struct ExitStatusTests {
    /// DESIGN §2: a batch exits with the most severe status of its lines.
    @Test(arguments: [
        (ExitStatus.configuration, ExitStatus.databaseError, ExitStatus.configuration),
        (.databaseError, .unavailable, .databaseError),
        (.unavailable, .protocolError, .unavailable),
        (.protocolError, .temporary, .protocolError),
        (.temporary, .userActivationRequired, .temporary),
        (.userActivationRequired, .notFound, .userActivationRequired),
        (.notFound, .rejectedInput, .notFound),
        (.rejectedInput, .failed, .rejectedInput),
        (.failed, .declined, .failed),
        (.declined, .success, .declined),
        (.success, .success, .success),
        (.success, .configuration, .configuration),
    ])
    func theMoreSevereStatusWins(a: ExitStatus, b: ExitStatus, expected: ExitStatus) {
        #expect(ExitStatus.mostSevere(a, b) == expected)
        #expect(ExitStatus.mostSevere(b, a) == expected)
    }

    @Test func theSeverityOrderIsDesignsOrder() {
        let design: [Int32] = [78, 74, 69, 76, 75, 77, 66, 65, 3, 2, 0]
        #expect(ExitStatus.severityOrder.map(\.rawValue).filter { $0 != 64 } == design)
    }

    @Test func theStatusesAreDesignsStatuses() {
        #expect(Set(ExitStatus.allCases.map(\.rawValue)) == [0, 2, 3, 64, 65, 66, 69, 74, 75, 76, 77, 78])
    }

    /// Codes are dotted, unique, free of interpolation, and each has a meaning.
    @Test(arguments: ErrorCode.allCases)
    func everyCodeIsStableAndExplained(code: ErrorCode) {
        let parts = code.rawValue.split(separator: ".")
        #expect(parts.count == 2)
        #expect(code.rawValue.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." })
        #expect(!code.meaning.isEmpty)
        #expect(code.exitStatus != .success)
    }

    /// A table of the documented exit status of codes scripts rely on.
    @Test(arguments: [
        ("deeplink.duplicateParameter", Int32(65)), ("wallet.ambiguous", 66), ("wallet.notActivatable", 66),
        ("tmp.timeout", 69), ("tmp.serverError", 69), ("tmp.redirect", 76), ("tmp.unknownStatus", 76),
        ("storage.busy", 75), ("storage.readOnly", 74), ("activation.inProgress", 75),
        ("user.activationRequired", 77), ("config.tlsFiles", 78), ("usage.invalid", 64),
        ("onboarding.otpInvalid", 2), ("onboarding.processFailed", 3), ("onboarding.notRunning", 66),
        ("powerauth.invalidPIN", 64), ("audit.chainBroken", 65), ("import.invalidRow", 65),
    ])
    func documentedCodesHaveTheirStatus(code: String, status: Int32) throws {
        let known = try #require(ErrorCode(rawValue: code))
        #expect(known.exitStatus.rawValue == status)
    }
}
