/// Every row of the onboarding core's tables, as `tokenctl db copy` moves them from one
/// backend to the other.
public struct StateSnapshot: Sendable, Equatable {
    public var deviceActivations: [DeviceActivationRow]
    public var onboardingProcesses: [OnboardingProcessRow]
    public var loginUsers: [LoginUserRow]
    public var verifications: [VerificationRow]

    public init(
        deviceActivations: [DeviceActivationRow], onboardingProcesses: [OnboardingProcessRow],
        loginUsers: [LoginUserRow], verifications: [VerificationRow]
    ) {
        self.deviceActivations = deviceActivations
        self.onboardingProcesses = onboardingProcesses
        self.loginUsers = loginUsers
        self.verifications = verifications
    }

    /// The tables, by name, with the rows each holds here.
    public var tables: [(name: String, rows: Int)] {
        [
            ("powerauth_activation", deviceActivations.count), ("onboarding_process", onboardingProcesses.count),
            ("login_user", loginUsers.count), ("identity_verification", verifications.count),
        ]
    }

    /// The names of the tables that hold rows.
    public var heldTables: [String] {
        tables.filter { $0.rows > 0 }.map(\.name)
    }

    public var rowCount: Int {
        tables.reduce(0) { $0 + $1.rows }
    }
}
