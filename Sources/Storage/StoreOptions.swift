/// Where and how to open the database.
public struct StoreOptions: Sendable, Equatable {
    /// Path of the SQLite file.
    public var path: String
    /// Create the parent directory (mode 0700) when missing. True only for the built-in
    /// default location: an explicitly configured directory must already exist.
    public var createsDirectory: Bool
    /// How long a writer waits for another process's lock before failing with `storage.busy`.
    public var busyTimeoutMilliseconds: Int

    public init(path: String, createsDirectory: Bool = false, busyTimeoutMilliseconds: Int = 30_000) {
        self.path = path
        self.createsDirectory = createsDirectory
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }
}
