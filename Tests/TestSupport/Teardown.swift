/// Runs `body`, then awaits `teardown`, also when `body` throws: what a test started (a
/// sandbox, a server, a process) is stopped before the test returns, never left to a task
/// nobody waits for. A teardown's own failure does not hide the test's: it is ignored, as a
/// stop that finds its server already stopped is.
public func withTeardown<T>(
    _ teardown: () async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
) async throws -> T {
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    try? await teardown()
    return try result.get()
}
