import WalletModel

/// An open wallet for many lookups in one process (batch work, benchmarks), instead of
/// opening the database per call as ``Wallet`` does.
public final class WalletSession: Sendable {
    private let store: any TokenStore

    init(store: any TokenStore) {
        self.store = store
    }

    /// The records matching `query`, in serial order (empty when none).
    public func records(matching query: PassQuery) throws -> [PassRecord] {
        try store.passes(matching: query)
    }

    /// Checkpoints and closes the database.
    public func close() throws {
        try store.close()
    }
}

extension Wallet {
    /// Opens the database once; call ``WalletSession/close()`` when done.
    public func openSession() throws -> WalletSession {
        WalletSession(store: try store.open(logger: logger))
    }
}
