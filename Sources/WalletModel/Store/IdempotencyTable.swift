/// The resident service's Idempotency-Key table, the same on both backends (SQLite's
/// migrations v8 and v9, PostgreSQL's v3 and v5). A key's first request inserts its row with
/// `answer` NULL and the request id its attempt will be audited under; the attempt's
/// "started" row carries that id, so a repeat finds the attempt its key started in the
/// audit even when the answer was never stored. The answer is written when the request
/// finishes, and rows older than the retention are deleted.
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

    /// The attempt a key's request starts: its request id and the serial it names (the
    /// audit is read by serial; NULL for a request whose deeplink did not parse), and the
    /// process that claimed it (`HOST PID START`), so that a claim left by a process that
    /// died on this host before its attempt started is taken over at once.
    public static let attemptColumns = [
        "ALTER TABLE idempotency_key ADD COLUMN request_id TEXT",
        "ALTER TABLE idempotency_key ADD COLUMN serial_number TEXT",
        "ALTER TABLE idempotency_key ADD COLUMN owner TEXT",
    ]

    /// The passes left `activating`, which start-up recovery reads without scanning the wallet.
    public static let activatingIndex = "CREATE INDEX pass_record_activating ON pass_record (serial_number) WHERE state = 'activating'"
}
