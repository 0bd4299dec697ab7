import WalletModel

/// The PostgreSQL schema, as numbered migrations. Append new ones; never edit a shipped one.
/// `tokenctl_schema` records each one applied; `tokenctl db migrate` applies what is missing
/// under an advisory lock, so hosts migrating at once apply each migration once.
enum PostgresSchema {
    struct Migration {
        let name: String
        /// One statement each: the extended protocol runs one at a time.
        let statements: [String]
    }

    /// The advisory lock keys: the migration's, and the audit chain's (one appender at a time).
    static let migrationLock: Int64 = 0x746F_6B65_6E63_0001
    static let chainLock: Int64 = 0x746F_6B65_6E63_0002

    static let migrations: [Migration] = [
        Migration(
            name: "v1-wallet-and-audit",
            statements: [
                """
                CREATE TABLE tokenctl_metadata (
                    key text PRIMARY KEY,
                    value bytea NOT NULL
                )
                """,
                // One row per wallet pass, as on SQLite: identity is (pass type, serial, device
                // account id); a device label names at most one of them (NULL as the empty label).
                """
                CREATE TABLE pass_record (
                    pass_type_identifier text NOT NULL,
                    serial_number text NOT NULL,
                    device_account_identifier text NOT NULL,
                    state text NOT NULL DEFAULT 'requiresActivation'
                        CHECK (state IN ('requiresActivation', 'activating', 'activated', 'suspended', 'deactivated')),
                    device_label text,
                    card_suffix text,
                    PRIMARY KEY (serial_number, pass_type_identifier, device_account_identifier)
                )
                """,
                """
                CREATE UNIQUE INDEX pass_record_device ON pass_record (serial_number, pass_type_identifier, coalesce(device_label, ''))
                """,
                // The audit: the same rows and hash chain as on SQLite. seq is the chain's order,
                // given under the chain lock by tokenctl_apply.
                """
                CREATE TABLE audit_row (
                    seq bigint PRIMARY KEY,
                    attempt_id bigint NOT NULL,
                    event text NOT NULL CHECK (event IN ('started', 'finished')),
                    at text NOT NULL,
                    request_id text NOT NULL,
                    serial_number text NOT NULL,
                    pass_type_identifier text,
                    token_unique_reference text,
                    device_label text,
                    deeplink_hash text NOT NULL,
                    owner_pid integer,
                    owner_start text,
                    outcome text,
                    error_code text,
                    http_status integer,
                    card_last4 text,
                    comment text,
                    latency_ms integer,
                    previous_hash text NOT NULL,
                    hash text NOT NULL,
                    UNIQUE (attempt_id, event)
                )
                """,
                """
                CREATE INDEX audit_row_serial ON audit_row (serial_number)
                """,
                """
                CREATE SEQUENCE audit_attempt_id
                """,
                """
                CREATE FUNCTION tokenctl_audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    RAISE EXCEPTION 'the activation audit is append-only' USING ERRCODE = 'insufficient_privilege';
                END $$
                """,
                """
                CREATE TRIGGER audit_row_append_only BEFORE UPDATE OR DELETE ON audit_row
                    FOR EACH ROW EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                """
                CREATE TRIGGER audit_row_no_truncate BEFORE TRUNCATE ON audit_row
                    FOR EACH STATEMENT EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                """
                REVOKE UPDATE, DELETE, TRUNCATE ON audit_row FROM PUBLIC
                """,
                """
                REVOKE UPDATE, DELETE, TRUNCATE ON audit_row FROM CURRENT_USER
                """,
                // Who owns an attempt in flight: a host, a process on it, until when. A host that
                // died is detected when its lease expires; the attempt is then closed as UNKNOWN.
                """
                CREATE TABLE attempt_lease (
                    serial_number text NOT NULL,
                    token_unique_reference text NOT NULL,
                    attempt_id bigint NOT NULL UNIQUE,
                    request_id text NOT NULL,
                    deeplink_hash text NOT NULL,
                    host_id text NOT NULL,
                    owner_pid integer NOT NULL,
                    owner_start text NOT NULL,
                    expires_at timestamptz NOT NULL,
                    PRIMARY KEY (serial_number, token_unique_reference)
                )
                """,
                // A row per attempt in flight, inserted and deleted: vacuumed after every 500
                // dead rows rather than a fifth of a table that holds a few live ones.
                """
                ALTER TABLE attempt_lease SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 500,
                    autovacuum_vacuum_cost_delay = 0)
                """,
                applyFunction,
                resolveFunction,
            ]),
        // The onboarding core's state, per instance id, as on SQLite (its migrations v3–v6):
        // hosts of a fleet that share an instance id share its user activation and login.
        Migration(
            name: "v2-onboarding-state",
            statements: [
                """
                CREATE TABLE powerauth_activation (
                    instance_id text PRIMARY KEY,
                    activation_id text NOT NULL,
                    activation_name text NOT NULL,
                    created_at text NOT NULL,
                    server_public_key bytea NOT NULL,
                    device_public_key bytea NOT NULL,
                    device_private_key_vault bytea NOT NULL,
                    possession_key bytea NOT NULL,
                    transport_key bytea NOT NULL,
                    knowledge_key_encrypted bytea NOT NULL,
                    knowledge_key_salt bytea NOT NULL,
                    knowledge_key_iterations integer NOT NULL,
                    counter_data bytea NOT NULL,
                    counter bigint NOT NULL DEFAULT 0,
                    token_id text,
                    token_secret bytea,
                    token_factor text
                )
                """,
                """
                CREATE TABLE onboarding_process (
                    instance_id text PRIMARY KEY,
                    process_id text NOT NULL,
                    started_at text NOT NULL
                )
                """,
                """
                CREATE TABLE login_user (
                    instance_id text PRIMARY KEY,
                    identity text NOT NULL,
                    device_name text NOT NULL,
                    mpin_id text NOT NULL,
                    reg_ott text NOT NULL,
                    state text NOT NULL
                        CHECK (state IN ('INVALID', 'STARTED_REGISTRATION', 'ACTIVATED', 'REGISTERED', 'BLOCKED')),
                    secret text,
                    discovery text NOT NULL,
                    failed_attempts integer NOT NULL DEFAULT 0,
                    last_login_at text,
                    last_login_answer text,
                    created_at text NOT NULL
                )
                """,
                """
                CREATE TABLE identity_verification (
                    instance_id text PRIMARY KEY,
                    process_id text,
                    phase text,
                    status text,
                    document_types text,
                    updated_at text NOT NULL
                )
                """,
            ]),
        // The resident service's Idempotency-Key answers, as on SQLite (its migration v8).
        Migration(
            name: "v3-idempotency-keys",
            statements: [
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
            ]),
        // One call per group for reads and writes alike, committed before it answers; the
        // lease on an attempt in flight moves onto its pass (one row updated per step instead
        // of a lease row inserted, locked and deleted).
        Migration(
            name: "v4-one-call-per-group",
            statements: [
                """
                ALTER TABLE pass_record ADD COLUMN lease_attempt_id bigint, ADD COLUMN lease_request_id text,
                    ADD COLUMN lease_deeplink_hash text, ADD COLUMN lease_host_id text, ADD COLUMN lease_owner_pid integer,
                    ADD COLUMN lease_owner_start text, ADD COLUMN lease_expires_at timestamptz
                """,
                """
                UPDATE pass_record p SET lease_attempt_id = l.attempt_id, lease_request_id = l.request_id,
                    lease_deeplink_hash = l.deeplink_hash, lease_host_id = l.host_id, lease_owner_pid = l.owner_pid,
                    lease_owner_start = l.owner_start, lease_expires_at = l.expires_at
                FROM attempt_lease l
                WHERE l.serial_number = p.serial_number AND l.token_unique_reference = p.device_account_identifier
                """,
                "DROP TABLE attempt_lease",
                "DROP FUNCTION tokenctl_apply(jsonb, text)",
                "DROP FUNCTION tokenctl_resolve(text, text, text)",
                v4StepProcedure,
            ]),
        // A key bound to the attempt its request starts, and the passes left activating
        // found through an index of their own, as on SQLite (its migration v9).
        Migration(
            name: "v5-idempotency-attempts",
            statements: [
                "ALTER TABLE idempotency_key ADD COLUMN request_id text",
                "ALTER TABLE idempotency_key ADD COLUMN serial_number text",
                "ALTER TABLE idempotency_key ADD COLUMN owner text",
                "CREATE INDEX pass_record_activating ON pass_record (serial_number) WHERE state = 'activating'",
            ]),
        // tokenctl_step answers every value under its name (decoded by name, not position).
        Migration(
            name: "v6-step-answer-by-name", statements: [stepProcedure(create: "CREATE OR REPLACE", reads: namedReads)]),
        // The audit as a transparency log (DESIGN §9): for each whole block of 16 audit rows its
        // leaf hashes, the Merkle tree's nodes of 16 leaves and up (one tree for the fleet's one
        // chain), and the signed checkpoints.
        Migration(
            name: "v7-transparency-log",
            statements: [
                """
                CREATE TABLE audit_tree_node (
                    level integer NOT NULL,
                    idx bigint NOT NULL,
                    hash bytea NOT NULL CHECK (length(hash) = 32),
                    PRIMARY KEY (level, idx)
                )
                """,
                """
                CREATE TABLE audit_tree_leaves (
                    block bigint PRIMARY KEY,
                    hashes bytea NOT NULL CHECK (length(hashes) = 512)
                )
                """,
                """
                CREATE TABLE audit_checkpoint (
                    size bigint PRIMARY KEY,
                    note text NOT NULL
                )
                """,
                // Append-only, as the audit is.
                """
                CREATE TRIGGER audit_tree_node_append_only BEFORE UPDATE OR DELETE ON audit_tree_node
                    FOR EACH ROW EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                """
                CREATE TRIGGER audit_tree_leaves_append_only BEFORE UPDATE OR DELETE ON audit_tree_leaves
                    FOR EACH ROW EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                """
                CREATE TRIGGER audit_checkpoint_append_only BEFORE UPDATE OR DELETE ON audit_checkpoint
                    FOR EACH ROW EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                "REVOKE UPDATE, DELETE, TRUNCATE ON audit_tree_node, audit_tree_leaves, audit_checkpoint FROM PUBLIC",
                "REVOKE UPDATE, DELETE, TRUNCATE ON audit_tree_node, audit_tree_leaves, audit_checkpoint FROM CURRENT_USER",
            ]),
        // Witnesses' cosignatures on the checkpoints, append-only.
        Migration(
            name: "v8-witness-cosignatures",
            statements: [
                """
                CREATE TABLE audit_cosignature (
                    witness text NOT NULL,
                    size bigint NOT NULL,
                    line text NOT NULL,
                    time bigint NOT NULL,
                    PRIMARY KEY (size, witness)
                )
                """,
                "CREATE INDEX audit_cosignature_witness ON audit_cosignature (witness, size)",
                """
                CREATE TRIGGER audit_cosignature_append_only BEFORE UPDATE OR DELETE ON audit_cosignature
                    FOR EACH ROW EXECUTE FUNCTION tokenctl_audit_is_append_only()
                """,
                "REVOKE UPDATE, DELETE, TRUNCATE ON audit_cosignature FROM PUBLIC",
                "REVOKE UPDATE, DELETE, TRUNCATE ON audit_cosignature FROM CURRENT_USER",
            ]),
        // A checkpoint belongs to a log (its origin, the note's first line) and a key (the id
        // in its first signature): a rotated origin or key signs anew at a size already signed
        // (DESIGN §9); `id` orders two of one size. Cosignatures name the log they cosigned,
        // carried over from their checkpoints with the append-only trigger off for this one
        // statement, inside the migration's transaction.
        Migration(
            name: "v9-checkpoints-by-log",
            statements: [
                """
                ALTER TABLE audit_checkpoint
                    ADD COLUMN origin text GENERATED ALWAYS AS (split_part(note, E'\\n', 1)) STORED,
                    ADD COLUMN key_id text GENERATED ALWAYS AS (encode(substring(decode(
                        split_part(split_part(split_part(note, E'\\n\\n', 2), E'\\n', 1), ' ', 3), 'base64') FROM 1 FOR 4), 'hex')) STORED,
                    ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY
                """,
                "ALTER TABLE audit_checkpoint DROP CONSTRAINT audit_checkpoint_pkey, ADD PRIMARY KEY (origin, key_id, size)",
                "CREATE INDEX audit_checkpoint_size ON audit_checkpoint (size, id)",
                "ALTER TABLE audit_cosignature ADD COLUMN origin text NOT NULL DEFAULT ''",
                "GRANT UPDATE ON audit_cosignature TO CURRENT_USER",
                "ALTER TABLE audit_cosignature DISABLE TRIGGER audit_cosignature_append_only",
                "UPDATE audit_cosignature c SET origin = k.origin FROM audit_checkpoint k WHERE k.size = c.size",
                "ALTER TABLE audit_cosignature ENABLE TRIGGER audit_cosignature_append_only",
                "REVOKE UPDATE ON audit_cosignature FROM CURRENT_USER",
                "ALTER TABLE audit_cosignature ALTER COLUMN origin DROP DEFAULT",
                "ALTER TABLE audit_cosignature DROP CONSTRAINT audit_cosignature_pkey, ADD PRIMARY KEY (origin, size, witness)",
                "DROP INDEX audit_cosignature_witness",
                "CREATE INDEX audit_cosignature_witness ON audit_cosignature (witness, origin, size)",
            ]),
    ]

    /// tokenctl_resolve(serial, pass type, device): a pass's records with their leases and a
    /// new attempt id (a row with NULL records when none matches). A function so that the
    /// server plans the query once per connection, not at every call (planning it took
    /// longer than running it).
    static let resolveFunction = """
        CREATE FUNCTION tokenctl_resolve(serial text, pass_type text, device text)
        RETURNS TABLE (attempt_id bigint, pass_type_identifier text, serial_number text, device_account_identifier text,
                       state text, device_label text, card_suffix text, lease_attempt_id bigint, request_id text,
                       deeplink_hash text, host_id text, owner_pid integer, owner_start text, lease_live boolean)
        LANGUAGE plpgsql AS $$
        DECLARE
            new_id bigint := nextval('audit_attempt_id');
        BEGIN
            RETURN QUERY
            SELECT new_id, p.pass_type_identifier, p.serial_number, p.device_account_identifier, p.state, p.device_label, p.card_suffix,
                   l.attempt_id, l.request_id, l.deeplink_hash, l.host_id, l.owner_pid, l.owner_start, l.expires_at > clock_timestamp()
            FROM (SELECT 1) AS one
            LEFT JOIN pass_record p ON p.serial_number = serial
                AND (pass_type IS NULL OR p.pass_type_identifier = pass_type)
                AND (device IS NULL OR p.device_label = device)
            LEFT JOIN attempt_lease l ON l.serial_number = p.serial_number AND l.token_unique_reference = p.device_account_identifier
            ORDER BY p.serial_number, p.pass_type_identifier, p.device_account_identifier;
        END $$
        """

    /// tokenctl_apply(changes, genesis): each change checks what it expects (pass states, leases
    /// it closes) with the rows locked, then applies them and queues its audit rows; a change
    /// whose expectation fails is skipped and answered "conflict". The queued rows are then
    /// chained and inserted under one transaction-scoped advisory lock: one round trip and
    /// one lock per call, however many rows it carries. The statement runs in autocommit, so
    /// the lock is released at its commit.
    ///
    /// A row's hash is SHA-256 over the same text as on SQLite: the client sends the text
    /// after the previous hash ("rest"), which only the server knows under the lock.
    static let applyFunction = """
        CREATE FUNCTION tokenctl_apply(changes jsonb, genesis text) RETURNS jsonb LANGUAGE plpgsql AS $$
        DECLARE
            change jsonb;
            item jsonb;
            ok boolean;
            found_state text;
            statuses jsonb := '[]';
            pending jsonb := '[]';
            previous text;
            last_seq bigint;
            row_hash text;
            r jsonb;
        BEGIN
            FOR change IN SELECT value FROM jsonb_array_elements(changes) LOOP
                -- A finish sent again after its answer was lost: applied already.
                IF change ? 'once' AND EXISTS (
                    SELECT 1 FROM audit_row WHERE attempt_id = (change->>'once')::bigint AND event = 'finished') THEN
                    statuses := statuses || '"done"';
                    CONTINUE;
                END IF;
                ok := true;
                FOR item IN SELECT value FROM jsonb_array_elements(coalesce(change->'states', '[]')) LOOP
                    SELECT state INTO found_state FROM pass_record
                    WHERE serial_number = item->>'serial' AND pass_type_identifier = item->>'passType'
                      AND device_account_identifier = item->>'token'
                    FOR UPDATE;
                    IF found_state IS DISTINCT FROM item->>'from' THEN ok := false; END IF;
                END LOOP;
                FOR item IN SELECT value FROM jsonb_array_elements(coalesce(change->'dropLeases', '[]')) LOOP
                    PERFORM 1 FROM attempt_lease WHERE attempt_id = (item #>> '{}')::bigint FOR UPDATE;
                    IF NOT FOUND THEN ok := false; END IF;
                END LOOP;
                IF NOT ok THEN
                    statuses := statuses || '"conflict"';
                    CONTINUE;
                END IF;
                FOR item IN SELECT value FROM jsonb_array_elements(coalesce(change->'states', '[]')) LOOP
                    UPDATE pass_record SET state = item->>'to'
                    WHERE serial_number = item->>'serial' AND pass_type_identifier = item->>'passType'
                      AND device_account_identifier = item->>'token' AND state IS DISTINCT FROM item->>'to';
                END LOOP;
                -- One by one, by the unique index: the table churns (a row per attempt in flight),
                -- and the planner, counting its few live rows, would scan its dead ones.
                FOR item IN SELECT value FROM jsonb_array_elements(coalesce(change->'dropLeases', '[]')) LOOP
                    DELETE FROM attempt_lease WHERE attempt_id = (item #>> '{}')::bigint;
                END LOOP;
                IF change ? 'lease' THEN
                    item := change->'lease';
                    INSERT INTO attempt_lease (serial_number, token_unique_reference, attempt_id, request_id, deeplink_hash,
                                               host_id, owner_pid, owner_start, expires_at)
                    VALUES (item->>'serial', item->>'token', (item->>'attempt')::bigint, item->>'request', item->>'deeplink',
                            item->>'host', (item->>'pid')::integer, item->>'processStart',
                            clock_timestamp() + (item->>'milliseconds')::bigint * interval '1 millisecond');
                END IF;
                pending := pending || coalesce(change->'rows', '[]');
                statuses := statuses || '"ok"';
            END LOOP;
            IF jsonb_array_length(pending) > 0 THEN
                PERFORM pg_advisory_xact_lock(\(chainLock));
                SELECT seq, hash INTO last_seq, previous FROM audit_row ORDER BY seq DESC LIMIT 1;
                IF NOT FOUND THEN
                    last_seq := 0;
                    previous := genesis;
                END IF;
                FOR r IN SELECT value FROM jsonb_array_elements(pending) LOOP
                    last_seq := last_seq + 1;
                    row_hash := encode(sha256(convert_to('{"previous": "' || previous || '"' || (r->>'rest'), 'UTF8')), 'hex');
                    INSERT INTO audit_row (seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier,
                        token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code,
                        http_status, card_last4, comment, latency_ms, previous_hash, hash)
                    VALUES (last_seq, (r->>'attempt')::bigint, r->>'event', r->>'at', r->>'request', r->>'serial', r->>'passType',
                        r->>'token', r->>'device', r->>'deeplink', (r->>'pid')::integer, r->>'ownerStart', r->>'outcome', r->>'error',
                        (r->>'http')::integer, r->>'last4', r->>'comment', (r->>'latency')::integer, previous, row_hash);
                    previous := row_hash;
                END LOOP;
            END IF;
            RETURN statuses;
        END $$
        """

    /// The reads of v6's procedure, every value under its name: {"attempt": id, "passes":
    /// [{"passType", "serial", "token", "state", "device", "cardSuffix", "lease": null or
    /// {"attempt", "request", "deeplink", "host", "pid", "processStart", "live"}}, …]}.
    static let namedReads = """
        SELECT coalesce(json_agg(json_build_object('attempt', w.id, 'passes', (
                SELECT coalesce(json_agg(json_build_object(
                           'passType', p.pass_type_identifier, 'serial', p.serial_number, 'token', p.device_account_identifier,
                           'state', p.state, 'device', p.device_label, 'cardSuffix', p.card_suffix,
                           'lease', CASE WHEN p.state = 'activating' AND p.lease_attempt_id IS NOT NULL THEN json_build_object(
                               'attempt', p.lease_attempt_id, 'request', p.lease_request_id, 'deeplink', p.lease_deeplink_hash,
                               'host', p.lease_host_id, 'pid', p.lease_owner_pid, 'processStart', p.lease_owner_start,
                               'live', p.lease_expires_at > clock_timestamp()) END)
                           ORDER BY p.serial_number, p.pass_type_identifier, p.device_account_identifier), '[]')
                FROM pass_record p
        """

    /// tokenctl_step(changes, reads, genesis, answer): what a group of attempts sends in one
    /// round trip. Each change that moves a pass checks what it expects and applies itself in
    /// one UPDATE (the state it moves from, and the lease it closes, which counts while the
    /// pass is activating; the new lease, or none); one whose expectation fails is answered
    /// "conflict", or "done" when its last audit row is there already (written before, the
    /// answer lost with a connection). The changes' audit rows are then chained under one
    /// transaction-scoped advisory lock and inserted in one statement, and the transaction
    /// COMMITs inside the procedure, before any answer exists: a server that dies before the
    /// commit never answered. The reads follow, on what was committed: each query's records
    /// with their leases, and a new attempt id.
    ///
    /// A row's hash is SHA-256 over the same text as on SQLite: the client sends the text
    /// after the previous hash ("rest"), which only the server knows under the lock.
    /// The answer is JSON text: {"statuses": […], "reads": [pass reads as `reads` selects them]}.
    static func stepProcedure(create: String, reads: String) -> String {
        """
        \(create) PROCEDURE tokenctl_step(changes jsonb, reads jsonb, genesis text, INOUT answer text DEFAULT NULL)
        LANGUAGE plpgsql AS $$
        DECLARE
            change jsonb;
            move jsonb;
            last jsonb;
            ok boolean;
            statuses text[] := '{}';
            pending jsonb := '[]';
            previous text;
            last_seq bigint;
            audit jsonb;
            hashes text[];
            resolved text;
        BEGIN
            FOR change IN SELECT value FROM jsonb_array_elements(changes) LOOP
                move := change->'pass';
                IF move IS NOT NULL THEN
                    -- One statement: the check (the state it moves from; the lease it closes, which
                    -- counts only while the pass is activating) and the move, with the row locked.
                    UPDATE pass_record SET state = move->>'to',
                        lease_attempt_id = (move->'lease'->>'attempt')::bigint, lease_request_id = move->'lease'->>'request',
                        lease_deeplink_hash = move->'lease'->>'deeplink', lease_host_id = move->'lease'->>'host',
                        lease_owner_pid = (move->'lease'->>'pid')::integer, lease_owner_start = move->'lease'->>'processStart',
                        lease_expires_at = clock_timestamp() + (move->'lease'->>'milliseconds')::bigint * interval '1 millisecond'
                    WHERE serial_number = move->>'serial' AND pass_type_identifier = move->>'passType'
                      AND device_account_identifier = move->>'token' AND state = move->>'from'
                      AND (state <> 'activating' OR lease_attempt_id IS NOT DISTINCT FROM (move->>'holder')::bigint);
                    ok := FOUND;
                ELSE
                    ok := true;
                END IF;
                -- Written before, its answer lost with a connection: its last audit row is there (this
                -- row, not one another host wrote for the attempt once its lease had expired).
                IF NOT ok OR move IS NULL THEN
                    last := change->'rows'->-1;
                    IF EXISTS (SELECT 1 FROM audit_row WHERE attempt_id = (last->>'attempt')::bigint AND event = last->>'event'
                               AND at = last->>'at' AND outcome IS NOT DISTINCT FROM last->>'outcome') THEN
                        statuses := statuses || 'done'::text;
                        CONTINUE;
                    END IF;
                END IF;
                IF NOT ok THEN
                    statuses := statuses || 'conflict'::text;
                    CONTINUE;
                END IF;
                pending := pending || (change->'rows');
                statuses := statuses || 'ok'::text;
            END LOOP;
            IF jsonb_array_length(pending) > 0 THEN
                PERFORM pg_advisory_xact_lock(\(chainLock));
                SELECT seq, hash INTO last_seq, previous FROM audit_row ORDER BY seq DESC LIMIT 1;
                IF NOT FOUND THEN
                    last_seq := 0;
                    previous := genesis;
                END IF;
                hashes := array[previous];
                FOR audit IN SELECT value FROM jsonb_array_elements(pending) LOOP
                    previous := encode(sha256(convert_to('{"previous": "' || previous || '"' || (audit->>'rest'), 'UTF8')), 'hex');
                    hashes := hashes || previous;
                END LOOP;
                INSERT INTO audit_row (seq, attempt_id, event, at, request_id, serial_number, pass_type_identifier,
                    token_unique_reference, device_label, deeplink_hash, owner_pid, owner_start, outcome, error_code,
                    http_status, card_last4, comment, latency_ms, previous_hash, hash)
                SELECT last_seq + n, (a->>'attempt')::bigint, a->>'event', a->>'at', a->>'request', a->>'serial', a->>'passType',
                    a->>'token', a->>'device', a->>'deeplink', (a->>'pid')::integer, a->>'ownerStart', a->>'outcome', a->>'error',
                    (a->>'http')::integer, a->>'last4', a->>'comment', (a->>'latency')::integer, hashes[n], hashes[n + 1]
                FROM jsonb_array_elements(pending) WITH ORDINALITY AS e(a, n);
            END IF;
            IF array_length(statuses, 1) > 0 THEN
                COMMIT;
            END IF;
            -- Index scans per read, a new attempt id each (a subquery per read, not a join the
            -- planner could turn into a scan of the wallet). Without JIT: the planner counts a
            -- hundred reads (any set function's guess), and against a large wallet that cost
            -- would have it compile the query at every call, for longer than it runs. A lease
            -- counts while its pass is activating.
            PERFORM set_config('jit', 'off', true);
            WITH w AS MATERIALIZED (
                SELECT q.n, q.wanted->>'serial' AS serial, q.wanted->>'passType' AS pass_type, q.wanted->>'device' AS device,
                       nextval('audit_attempt_id') AS id
                FROM jsonb_array_elements(reads) WITH ORDINALITY AS q(wanted, n))
            \(reads.split(separator: "\n").joined(separator: "\n            "))
                    WHERE p.serial_number = w.serial AND (w.pass_type IS NULL OR p.pass_type_identifier = w.pass_type)
                      AND (w.device IS NULL OR p.device_label = w.device)))
                ORDER BY w.n), '[]')::text INTO resolved FROM w;
            answer := '{"statuses": ' || to_json(statuses)::text || ', "reads": ' || resolved || '}';
        END $$
        """
    }
}
