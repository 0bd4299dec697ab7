import HexCoding
import PostgresNIO
import WalletModel

/// Where a database's schema stands against this binary's.
public struct SchemaStatus: Sendable, Equatable {
    /// Migrations applied to the database (0 for a new one).
    public let applied: Int
    /// Migrations this tokenctl knows.
    public let known: Int
    /// The names of the migrations this binary would apply.
    public let pending: [String]
}

extension PostgresStore {
    /// The database's schema version next to this binary's.
    public func schemaStatus() async throws -> SchemaStatus {
        let applied = try await withConnection { connection async throws -> Int in
            let exists = try await connection.answer("SELECT to_regclass('tokenctl_schema') IS NOT NULL", logger)
            guard try exists.first?.decode(Bool.self) == true else { return 0 }
            let rows = try await connection.answer("SELECT coalesce(max(version), 0) FROM tokenctl_schema", logger)
            return try rows.first?.decode(Int.self) ?? 0
        }
        return Self.schemaStatus(applied: applied)
    }

    private static func schemaStatus(applied: Int) -> SchemaStatus {
        let known = PostgresSchema.migrations.count
        let pending = applied < known ? PostgresSchema.migrations[applied...].map(\.name) : []
        return SchemaStatus(applied: applied, known: known, pending: pending)
    }

    /// Applies the missing migrations, each in its own transaction, under a session advisory
    /// lock (a second host migrating at the same moment waits, then finds nothing to do).
    /// - Returns: the names of the migrations applied.
    /// - Throws: `storage.schemaTooNew` when the database is ahead of this binary.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await withConnection { connection in
            let unlock: PostgresQuery = "SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))"
            return try await connection.between(
                "SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))", and: unlock, undo: unlock, logger
            ) { try await migrate(connection) }
        }
    }

    /// The missing migrations, applied on `connection` under the migration lock.
    private func migrate(_ connection: PostgresConnection) async throws -> [String] {
        try await connection.run(
            """
            CREATE TABLE IF NOT EXISTS tokenctl_schema (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger)
        let rows = try await connection.answer("SELECT coalesce(max(version), 0) FROM tokenctl_schema", logger)
        let applied = try rows.first?.decode(Int.self) ?? 0
        let known = PostgresSchema.migrations
        if applied > known.count {
            throw StorageError(
                .storageSchemaTooNew,
                "the database \(options.displayURL) has schema version \(applied), newer than this tokenctl knows (\(known.count)); use a newer tokenctl"
            )
        }
        var names: [String] = []
        for (index, migration) in known.enumerated().dropFirst(applied) {
            let version = index + 1
            // The key of the deeplink hash: random, made with the database, in its first transaction.
            let key =
                version == 1
                ? [
                    "INSERT INTO tokenctl_metadata (key, value) VALUES ('deeplink-hash-key', '\\x\(Self.randomHex(bytes: 32))')"
                ] : []
            try await connection.between("BEGIN", and: "COMMIT", undo: "ROLLBACK", logger) {
                for statement in migration.statements + key + [
                    "INSERT INTO tokenctl_schema (version, name) VALUES (\(version), '\(migration.name)')"
                ] {
                    try await connection.run(statement, logger)
                }
            }
            names.append(migration.name)
        }
        return names
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
