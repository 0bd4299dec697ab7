/// The onboarding core's records, each of its flows takes the ones it uses (a store keeps
/// one table: ``LoginUserRecords`` for the PIN login, for example).
public typealias OnboardingRecords = OnboardingProcessRecords & DeviceActivationRecords & VerificationRecords
    & LoginUserRecords

/// The onboarding core's state and the service's Idempotency-Keys, per intent: each driver
/// keeps them beside its schema (SQLite's migrations v3–v6, v8, v9; PostgreSQL's v2, v3, v5),
/// each call one transaction.
public protocol StateDatabase: OnboardingRecords, IdempotencyKeyRecords {
    /// Every row of the onboarding core's tables (what `tokenctl db copy` moves besides the
    /// wallet and the audit; Idempotency-Keys are not moved).
    func stateSnapshot() async throws -> StateSnapshot

    /// Closes the database (a store a caller opened for one call).
    func close() async throws
}

extension StateDatabase {
    /// Runs `body`, then closes this database, also when `body` throws.
    public func closing<T>(after body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            try await close()
            return result
        } catch {
            try? await close()
            throw error
        }
    }
}
