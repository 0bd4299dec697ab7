/// The resident service's Idempotency-Key table, the same on both backends (SQLite's
/// migration v8, PostgreSQL's v3). A key's first request inserts its row with `answer`
/// NULL, the answer is written when the request finishes, and rows older than the
/// retention are deleted.
public enum IdempotencyTable {
    public static let name = "idempotency_key"

    public static let sqlite = """
        CREATE TABLE idempotency_key (
            key TEXT PRIMARY KEY,
            deeplink_hash TEXT NOT NULL,
            created_ms INTEGER NOT NULL,
            status INTEGER,
            answer TEXT
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_key_created ON idempotency_key (created_ms);
        """

    public static let postgres = [
        """
        CREATE TABLE idempotency_key (
            key text PRIMARY KEY,
            deeplink_hash text NOT NULL,
            created_ms bigint NOT NULL,
            status integer,
            answer text
        )
        """,
        "CREATE INDEX idempotency_key_created ON idempotency_key (created_ms)",
    ]
}
