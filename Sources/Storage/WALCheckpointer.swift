import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints the write-ahead log beside the writers instead of inside a commit. SQLite's
/// automatic checkpoint runs in the commit that finds the log past 1,000 pages: that commit
/// copies the log into the database file and syncs it, and the requests waiting on it wait
/// for the disk. Here the connections' log hook only notes the size; past 1,000 pages a
/// PASSIVE checkpoint runs on a connection of its own, on this store's checkpoint queue, while
/// the writer goes on appending (a passive checkpoint takes no writer's lock).
///
/// A log is started again from its beginning only by a writer that finds every page of it
/// checkpointed, which a steady load never leaves it: past 3,000 pages the committing
/// connection checkpoints what the queue has not yet copied itself, as SQLite would, and
/// the next commit starts the log again. That commit waits for the disk, once per 3,000
/// pages instead of once per 1,000.
final class WALCheckpointer: Sendable {
    /// The log's size, in pages, past which a checkpoint is started (SQLite's default).
    static let pages: Int32 = 1_000
    /// The size past which the committing connection checkpoints, so that the log restarts.
    static let inlinePages: Int32 = 3_000

    private let path: String
    private let queue = DispatchQueue(label: "tokenctl.sqlite.checkpoint")
    private let scheduled = Atomic<Bool>(false)
    /// The checkpoint connection, opened at the first checkpoint; used on `queue` only.
    private let connection = Mutex<OpaquePointer?>(nil)

    init(path: String) {
        self.path = path
    }

    /// Installs the log hook on one of the store's connections (replacing SQLite's automatic
    /// checkpoint on it).
    func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// A commit on `db` left the log at `pages` pages.
    fileprivate func committed(pages: Int32, on db: OpaquePointer?) {
        if pages >= Self.inlinePages {
            sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= Self.pages,
            scheduled.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
        else { return }
        queue.async { [self] in
            checkpoint()
            scheduled.store(false, ordering: .releasing)
        }
    }

    private func checkpoint() {
        connection.withLock { handle in
            if handle == nil {
                var opened: OpaquePointer?
                guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
                    // The next commit past the size asks again; the log only grows meanwhile.
                    sqlite3_close_v2(opened)
                    return
                }
                // A new connection learns the file is in WAL mode when it first reads it.
                guard sqlite3_exec(opened, "SELECT count(*) FROM sqlite_schema", nil, nil, nil) == SQLITE_OK else {
                    sqlite3_close_v2(opened)
                    return
                }
                handle = opened
            }
            sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        }
    }

    /// Waits for a checkpoint under way, then closes the checkpoint connection.
    func close() {
        queue.sync {
            connection.withLock { handle in
                sqlite3_close_v2(handle)
                handle = nil
            }
        }
    }
}

/// SQLite's log hook: called on the committing connection's thread after each commit.
private let walHook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 =
    {
        context, db, _, pages in
        if let context {
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, on: db)
        }
        return SQLITE_OK
    }
