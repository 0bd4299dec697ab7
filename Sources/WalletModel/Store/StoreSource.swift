import Logging

/// Where an onboarding service gets its records: a database opened for one call and closed
/// after it, or the records of a database the caller already holds (one handle for the
/// whole process).
public enum StoreSource: Sendable {
    /// Opens a database for one call: the SQLite file, or PostgreSQL (the caller that
    /// knows both backends supplies the opener).
    case opening(@Sendable (Logger) async throws -> any StateDatabase)
    case shared(any OnboardingRecords)

    /// Runs `body` on the records; one opened here is closed after, also when `body` throws.
    public func using<T>(logger: Logger, _ body: (any OnboardingRecords) async throws -> T) async throws -> T {
        switch self {
        case .shared(let database):
            return try await body(database)
        case .opening(let open):
            let database = try await open(logger)
            return try await database.closing { try await body(database) }
        }
    }
}
