import Logging

/// Where a service gets its database: opened for one call and closed after it, or a
/// store the caller already holds (one handle for the whole process).
public enum StoreSource: Sendable {
    case options(StoreOptions)
    case shared(Store)

    /// Runs `body` on the store; one opened here is closed after, also when `body` throws.
    public func using<T>(logger: Logger, _ body: (Store) async throws -> T) async throws -> T {
        switch self {
        case .shared(let store):
            return try await body(store)
        case .options(let options):
            let store = try Store(options: options, logger: logger)
            do {
                let result = try await body(store)
                try store.close()
                return result
            } catch {
                try? store.close()
                throw error
            }
        }
    }
}
