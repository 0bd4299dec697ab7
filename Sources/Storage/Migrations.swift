import GRDB
import WalletModel

/// The schema, as named migrations. Append new migrations; never edit a shipped one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-pass-records") { db in
            // One row per wallet pass. The same serial can exist on an iPhone and a paired
            // Watch, so identity is (pass type, serial, device account id); a device label
            // names at most one of them (NULL counts as the empty label).
            try db.execute(
                sql: """
                    CREATE TABLE pass_record (
                        pass_type_identifier TEXT NOT NULL,
                        serial_number TEXT NOT NULL,
                        device_account_identifier TEXT NOT NULL,
                        state TEXT NOT NULL DEFAULT 'requiresActivation'
                            CHECK (state IN ('requiresActivation', 'activating', 'activated', 'suspended', 'deactivated')),
                        device_label TEXT,
                        card_suffix TEXT,
                        -- Leading with the serial makes the key the lookup index by serial too;
                        -- without a rowid the table is that index, one B-tree less to write.
                        PRIMARY KEY (serial_number, pass_type_identifier, device_account_identifier)
                    ) WITHOUT ROWID;
                    CREATE UNIQUE INDEX pass_record_device
                        ON pass_record (serial_number, pass_type_identifier, ifnull(device_label, ''));
                    """)
        }
        migrator.registerMigration("v2-activation-audit") { db in
            // The audit: two append-only rows per activation attempt, "started" (written
            // and committed before the request leaves) and "finished". Each row carries a
            // SHA-256 over its content and the previous row's hash; triggers forbid
            // changing or deleting rows, `tokenctl audit verify` checks the chain.
            try db.execute(
                sql: """
                    CREATE TABLE metadata (
                        key TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL
                    ) WITHOUT ROWID;
                    -- The key of the deeplink hash: random, made with the database.
                    INSERT INTO metadata (key, value) VALUES ('deeplink-hash-key', randomblob(32));

                    CREATE TABLE audit_row (
                        seq INTEGER PRIMARY KEY,
                        attempt_id INTEGER NOT NULL,
                        event TEXT NOT NULL CHECK (event IN ('started', 'finished')),
                        at TEXT NOT NULL,
                        request_id TEXT NOT NULL,
                        serial_number TEXT NOT NULL,
                        pass_type_identifier TEXT,
                        token_unique_reference TEXT,
                        device_label TEXT,
                        deeplink_hash TEXT NOT NULL,
                        owner_pid INTEGER,
                        owner_start TEXT,
                        outcome TEXT,
                        error_code TEXT,
                        http_status INTEGER,
                        card_last4 TEXT,
                        comment TEXT,
                        latency_ms INTEGER,
                        previous_hash TEXT NOT NULL,
                        hash TEXT NOT NULL,
                        UNIQUE (attempt_id, event)
                    );
                    CREATE INDEX audit_row_serial ON audit_row (serial_number);
                    CREATE TRIGGER audit_row_append_only_update BEFORE UPDATE ON audit_row
                        BEGIN SELECT RAISE(ABORT, 'the activation audit is append-only'); END;
                    CREATE TRIGGER audit_row_append_only_delete BEFORE DELETE ON audit_row
                        BEGIN SELECT RAISE(ABORT, 'the activation audit is append-only'); END;
                    """)
        }
        migrator.registerMigration("v3-powerauth-activation") { db in
            // The onboarding core's PowerAuth device activation, one per instance id.
            // Possession and transport keys are kept as the file's 0600 mode guards them;
            // the knowledge key only encrypted under a PIN-stretched key; the device
            // private key only encrypted under the vault key, which is never stored.
            try db.execute(
                sql: """
                    CREATE TABLE powerauth_activation (
                        instance_id TEXT PRIMARY KEY NOT NULL,
                        activation_id TEXT NOT NULL,
                        activation_name TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        server_public_key BLOB NOT NULL,
                        device_public_key BLOB NOT NULL,
                        device_private_key_vault BLOB NOT NULL,
                        possession_key BLOB NOT NULL,
                        transport_key BLOB NOT NULL,
                        knowledge_key_encrypted BLOB NOT NULL,
                        knowledge_key_salt BLOB NOT NULL,
                        knowledge_key_iterations INTEGER NOT NULL,
                        counter_data BLOB NOT NULL,
                        counter INTEGER NOT NULL DEFAULT 0,
                        token_id TEXT,
                        token_secret BLOB,
                        token_factor TEXT
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4-onboarding-process") { db in
            // The onboarding core's only persisted process state: the id of the running
            // user-activation process, one per instance id.
            try db.execute(
                sql: """
                    CREATE TABLE onboarding_process (
                        instance_id TEXT PRIMARY KEY NOT NULL,
                        process_id TEXT NOT NULL,
                        started_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v5-pin-login") { db in
            // The PIN app login's one user per instance id. `secret` holds the client secret
            // only between confirmation and set-pin, then the token (useless without the
            // PIN, which is never stored); it is NULL for a blocked user.
            try db.execute(
                sql: """
                    CREATE TABLE login_user (
                        instance_id TEXT PRIMARY KEY NOT NULL,
                        identity TEXT NOT NULL,
                        device_name TEXT NOT NULL,
                        mpin_id TEXT NOT NULL,
                        reg_ott TEXT NOT NULL,
                        state TEXT NOT NULL
                            CHECK (state IN ('INVALID', 'STARTED_REGISTRATION', 'ACTIVATED', 'REGISTERED', 'BLOCKED')),
                        secret TEXT,
                        discovery TEXT NOT NULL,
                        failed_attempts INTEGER NOT NULL DEFAULT 0,
                        last_login_at TEXT,
                        last_login_answer TEXT,
                        created_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v6-identity-verification") { db in
            // What identity verification keeps between calls, per instance id: the last
            // successful status (NULL columns once a status call failed: every call but
            // status needs its process id) and the locally chosen document types.
            try db.execute(
                sql: """
                    CREATE TABLE identity_verification (
                        instance_id TEXT PRIMARY KEY NOT NULL,
                        process_id TEXT,
                        phase TEXT,
                        status TEXT,
                        document_types TEXT,
                        updated_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v7-pass-state-check") { db in
            // The same table with the state check written as equalities. SQLite compiles a
            // CHECK's IN list of more than two values into a temporary B-tree that it builds
            // on every insert and every state update (Benchmarks/README.md, "Measured
            // shapes"), two of them per activation. The check cannot be
            // altered in place, so the table is rebuilt (SQLite's documented procedure);
            // its rows and their keys are unchanged.
            try db.execute(
                sql: """
                    CREATE TABLE pass_record_v7 (
                        pass_type_identifier TEXT NOT NULL,
                        serial_number TEXT NOT NULL,
                        device_account_identifier TEXT NOT NULL,
                        state TEXT NOT NULL DEFAULT 'requiresActivation'
                            CHECK (state = 'requiresActivation' OR state = 'activating' OR state = 'activated'
                                   OR state = 'suspended' OR state = 'deactivated'),
                        device_label TEXT,
                        card_suffix TEXT,
                        PRIMARY KEY (serial_number, pass_type_identifier, device_account_identifier)
                    ) WITHOUT ROWID;
                    INSERT INTO pass_record_v7 (pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix)
                        SELECT pass_type_identifier, serial_number, device_account_identifier, state, device_label, card_suffix
                        FROM pass_record ORDER BY serial_number, pass_type_identifier, device_account_identifier;
                    DROP TABLE pass_record;
                    ALTER TABLE pass_record_v7 RENAME TO pass_record;
                    CREATE UNIQUE INDEX pass_record_device
                        ON pass_record (serial_number, pass_type_identifier, ifnull(device_label, ''));
                    """)
        }
        migrator.registerMigration("v8-idempotency-keys") { db in
            // The resident service's Idempotency-Key answers (DESIGN §8): a key's first
            // request claims it (answer NULL while it runs), then its answer is kept until
            // the retention ends.
            try db.execute(
                sql: """
                    CREATE TABLE idempotency_key (
                        key TEXT PRIMARY KEY,
                        deeplink_hash TEXT NOT NULL,
                        created_ms INTEGER NOT NULL,
                        status INTEGER,
                        answer TEXT
                    ) WITHOUT ROWID;
                    CREATE INDEX idempotency_key_created ON idempotency_key (created_ms);
                    """)
        }
        migrator.registerMigration("v9-idempotency-attempts") { db in
            // A key is bound to the attempt its request starts (its request id), and the
            // passes left activating are found through an index of their own. The claim's
            // process (`HOST PID START`) lets a claim left by a process that died on this host
            // before its attempt started be taken over at once.
            try db.execute(
                sql: """
                    ALTER TABLE idempotency_key ADD COLUMN request_id TEXT;
                    ALTER TABLE idempotency_key ADD COLUMN serial_number TEXT;
                    ALTER TABLE idempotency_key ADD COLUMN owner TEXT;
                    CREATE INDEX pass_record_activating ON pass_record (serial_number) WHERE state = 'activating';
                    """)
        }
        migrator.registerMigration("v10-transparency-log") { db in
            // The audit as a transparency log (DESIGN §9): for each whole block of 16 audit
            // rows its leaf hashes, the Merkle tree's nodes of 16 leaves and up, and the
            // signed checkpoints. All append-only, as the audit is.
            try db.execute(
                sql: """
                    CREATE TABLE audit_tree_node (
                        level INTEGER NOT NULL,
                        idx INTEGER NOT NULL,
                        hash BLOB NOT NULL CHECK (length(hash) = 32),
                        PRIMARY KEY (level, idx)
                    ) WITHOUT ROWID;
                    CREATE TRIGGER audit_tree_node_append_only_update BEFORE UPDATE ON audit_tree_node
                        BEGIN SELECT RAISE(ABORT, 'the audit tree is append-only'); END;
                    CREATE TRIGGER audit_tree_node_append_only_delete BEFORE DELETE ON audit_tree_node
                        BEGIN SELECT RAISE(ABORT, 'the audit tree is append-only'); END;
                    CREATE TABLE audit_tree_leaves (
                        block INTEGER PRIMARY KEY,
                        hashes BLOB NOT NULL CHECK (length(hashes) = 512)
                    );
                    CREATE TRIGGER audit_tree_leaves_append_only_update BEFORE UPDATE ON audit_tree_leaves
                        BEGIN SELECT RAISE(ABORT, 'the audit tree is append-only'); END;
                    CREATE TRIGGER audit_tree_leaves_append_only_delete BEFORE DELETE ON audit_tree_leaves
                        BEGIN SELECT RAISE(ABORT, 'the audit tree is append-only'); END;
                    CREATE TABLE audit_checkpoint (
                        size INTEGER PRIMARY KEY,
                        note TEXT NOT NULL
                    );
                    CREATE TRIGGER audit_checkpoint_append_only_update BEFORE UPDATE ON audit_checkpoint
                        BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
                    CREATE TRIGGER audit_checkpoint_append_only_delete BEFORE DELETE ON audit_checkpoint
                        BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
                    """)
        }
        migrator.registerMigration("v11-witness-cosignatures") { db in
            // Witnesses' cosignatures on the checkpoints (DESIGN §9), append-only.
            try db.execute(
                sql: """
                    CREATE TABLE audit_cosignature (
                        witness TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        line TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        PRIMARY KEY (size, witness)
                    ) WITHOUT ROWID;
                    CREATE INDEX audit_cosignature_witness ON audit_cosignature (witness, size);
                    CREATE TRIGGER audit_cosignature_append_only_update BEFORE UPDATE ON audit_cosignature
                        BEGIN SELECT RAISE(ABORT, 'the audit cosignatures are append-only'); END;
                    CREATE TRIGGER audit_cosignature_append_only_delete BEFORE DELETE ON audit_cosignature
                        BEGIN SELECT RAISE(ABORT, 'the audit cosignatures are append-only'); END;
                    """)
        }
        migrator.registerMigration("v12-checkpoints-by-log") { db in
            // A checkpoint belongs to a log (its origin) and a key: a rotated origin or key signs
            // anew at the size already signed (DESIGN §9). Cosignatures name the log they
            // cosigned. The tables are made anew (SQLite changes no primary key in place), their
            // rows carried over, and stay append-only.
            let checkpoints = try Row.fetchAll(db, sql: "SELECT size, note FROM audit_checkpoint ORDER BY size").map {
                StoredCheckpoint(size: $0[0], note: $0[1])
            }
            let cosignatures = try Row.fetchAll(db, sql: "SELECT witness, size, line, time FROM audit_cosignature")
            try db.execute(
                sql: """
                    DROP TABLE audit_checkpoint;
                    DROP TABLE audit_cosignature;
                    CREATE TABLE audit_checkpoint (
                        origin TEXT NOT NULL,
                        key_id TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        note TEXT NOT NULL,
                        PRIMARY KEY (origin, key_id, size)
                    );
                    CREATE INDEX audit_checkpoint_size ON audit_checkpoint (size);
                    CREATE TRIGGER audit_checkpoint_append_only_update BEFORE UPDATE ON audit_checkpoint
                        BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
                    CREATE TRIGGER audit_checkpoint_append_only_delete BEFORE DELETE ON audit_checkpoint
                        BEGIN SELECT RAISE(ABORT, 'the audit checkpoints are append-only'); END;
                    CREATE TABLE audit_cosignature (
                        origin TEXT NOT NULL,
                        witness TEXT NOT NULL,
                        size INTEGER NOT NULL,
                        line TEXT NOT NULL,
                        time INTEGER NOT NULL,
                        PRIMARY KEY (origin, size, witness)
                    ) WITHOUT ROWID;
                    CREATE INDEX audit_cosignature_witness ON audit_cosignature (witness, origin, size);
                    CREATE TRIGGER audit_cosignature_append_only_update BEFORE UPDATE ON audit_cosignature
                        BEGIN SELECT RAISE(ABORT, 'the audit cosignatures are append-only'); END;
                    CREATE TRIGGER audit_cosignature_append_only_delete BEFORE DELETE ON audit_cosignature
                        BEGIN SELECT RAISE(ABORT, 'the audit cosignatures are append-only'); END;
                    """)
            var origins: [Int64: String] = [:]
            for checkpoint in checkpoints {
                try TransparencyLogTables.insert(checkpoint, db)
                origins[checkpoint.size] = checkpoint.origin
            }
            for row in cosignatures {
                let size: Int64 = row[1]
                try TransparencyLogTables.insert(
                    StoredCosignature(
                        origin: origins[size] ?? "", size: size, witness: row[0], line: row[2], time: row[3]), db)
            }
        }
        return migrator
    }
}
