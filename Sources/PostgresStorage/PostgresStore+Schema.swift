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
    public func schemaStatus() throws -> SchemaStatus {
        let applied = try withConnection { connection -> Int in
            let exists = try connection.answer("SELECT to_regclass('tokenctl_schema') IS NOT NULL", logger)
            guard try exists.first?.decode(Bool.self) == true else { return 0 }
            let rows = try connection.answer("SELECT coalesce(max(version), 0) FROM tokenctl_schema", logger)
            return try rows.first?.decode(Int.self) ?? 0
        }
        return Self.schemaStatus(applied: applied)
    }

    /// The same, awaited: the caller's task waits for the server, no thread does.
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
    public func migrate() throws -> [String] {
        try withConnection { connection in
            _ = try connection.answer("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))", logger)
            defer { _ = try? connection.answer("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))", logger) }
            try connection.run(
                """
                CREATE TABLE IF NOT EXISTS tokenctl_schema (
                    version integer PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """, logger)
            let rows = try connection.answer("SELECT coalesce(max(version), 0) FROM tokenctl_schema", logger)
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
                do {
                    try connection.run("BEGIN", logger)
                    for statement in migration.statements + key + [
                        "INSERT INTO tokenctl_schema (version, name) VALUES (\(version), '\(migration.name)')"
                    ] {
                        try connection.run(statement, logger)
                    }
                    try connection.run("COMMIT", logger)
                } catch {
                    try? connection.run("ROLLBACK", logger)
                    throw error
                }
                names.append(migration.name)
            }
            return names
        }
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
