import GRDB

/// The schema, as named migrations. Append new migrations; never edit a shipped one.
enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-pass-records") { db in
            // One row per wallet pass. The same serial can exist on an iPhone and a paired
            // Watch, so identity is (pass type, serial, device account id); a device label
            // names at most one of them (NULL counts as the empty label).
            try db.execute(sql: """
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
        return migrator
    }
}
