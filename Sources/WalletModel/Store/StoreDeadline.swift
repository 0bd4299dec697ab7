/// The instant by which the database must have answered the request or command now served:
/// its arrival plus `database.reconnect-window-ms` (DESIGN §10). A driver that loses its
/// connection retries until then, on whichever host is the primary by then, and a statement
/// still unanswered then counts as lost (a silent host). Set by whoever serves a request or
/// command, for the task that serves it; a call made outside one counts its window from its
/// own start.
public enum StoreDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?

    /// Runs `body` with the window of a request that arrived now.
    public static func serving<T>(
        windowMilliseconds: Int, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(.now + .milliseconds(windowMilliseconds)) { try await body() }
    }
}
