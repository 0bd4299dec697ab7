/// The instant by which the database must have answered the request or command now served:
/// its arrival plus `database.reconnect-window-ms` (DESIGN §10). A driver that loses its
/// connection retries until then, on whichever host is the primary by then. Set by whoever
/// serves a request or command, for the task that serves it; a call made outside one counts
/// its window from its own start.
public enum StoreDeadline {
    @TaskLocal public static var current: ContinuousClock.Instant?
    /// The window itself: a statement is given at least this long after it is sent before its
    /// connection counts as broken (a host gone silent), so a request slowed by a queue is
    /// not failed by a busy server.
    @TaskLocal public static var window: Duration?

    /// Runs `body` with the window of a request that arrived at `start` (now by default).
    public static func serving<T>(
        windowMilliseconds: Int, from start: ContinuousClock.Instant = .now, _ body: () async throws -> T
    ) async rethrows -> T {
        let window = Duration.milliseconds(windowMilliseconds)
        return try await within(window, until: start + window, body)
    }

    /// Runs `body` with the deadline `end` and a statement's least wait `window`.
    public static func within<T>(
        _ window: Duration, until end: ContinuousClock.Instant, _ body: () async throws -> T
    ) async rethrows -> T {
        try await $current.withValue(end) {
            try await $window.withValue(window) { try await body() }
        }
    }
}
