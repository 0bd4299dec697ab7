/// What an open database's connections went through since it was opened (DESIGN §10's
/// metrics): the calls that found a server again after their connection broke, those whose
/// window ended first, and the changes of the host that accepts writes.
public struct ConnectionFigures: Sendable, Equatable {
    /// Calls that reached a server again after a connection broke.
    public var reconnected: Int
    /// Calls whose `database.reconnect-window-ms` ended before a server answered.
    public var reconnectsFailed: Int
    /// Times the host of `database.url` that accepts writes changed (a failover).
    public var primaryChanges: Int

    public init(reconnected: Int = 0, reconnectsFailed: Int = 0, primaryChanges: Int = 0) {
        self.reconnected = reconnected
        self.reconnectsFailed = reconnectsFailed
        self.primaryChanges = primaryChanges
    }
}

extension TokenStore {
    /// A database with no connection to lose (a SQLite file): nothing counted.
    public var connectionFigures: ConnectionFigures { ConnectionFigures() }
}
