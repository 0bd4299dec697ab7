import WalletModel

extension Settings {
    /// Whether `target` (a `--database` or `db copy` argument) is a PostgreSQL URL rather than a file.
    public static func namesPostgres(_ target: String) -> Bool {
        PostgresURL.isPostgres(target)
    }

    /// Why `text`, a postgres:// URL, cannot be used (never repeating a password it holds);
    /// nil when it can, or when it names no PostgreSQL database.
    public static func postgresURLProblem(_ text: String) -> String? {
        guard namesPostgres(text) else { return nil }
        do {
            _ = try PostgresURL(parsing: text)
            return nil
        } catch {
            return error.reason
        }
    }
}
