import GRDB
import WalletModel

extension Store: StateDatabase {
    public func stateSnapshot() async throws -> StateSnapshot {
        try await read(StateTables.snapshot)
    }
}

/// The onboarding core's tables together, as `tokenctl db copy` reads and loads them.
enum StateTables {
    static func snapshot(_ db: Database) throws -> StateSnapshot {
        StateSnapshot(
            deviceActivations: try DeviceActivationTable.all(db),
            onboardingProcesses: try OnboardingProcessTable.all(db),
            loginUsers: try LoginUserTable.all(db), verifications: try VerificationTable.all(db)
        )
    }

    /// Inserts every row of `snapshot`.
    static func insert(_ snapshot: StateSnapshot, _ db: Database) throws {
        for activation in snapshot.deviceActivations { try DeviceActivationTable.insert(activation, db) }
        for process in snapshot.onboardingProcesses { try OnboardingProcessTable.insert(process, db) }
        for user in snapshot.loginUsers { try LoginUserTable.insert(user, db) }
        for verification in snapshot.verifications { try VerificationTable.insert(verification, db) }
    }
}
