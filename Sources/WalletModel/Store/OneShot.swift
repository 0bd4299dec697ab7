import Synchronization

/// A value given once and awaited once: the first ``give(_:)`` wins, a later one is refused
/// (returns false). The waiter may arrive before or after the value.
public final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<Value, any Error>)
        case given(Result<Value, any Error>)
        case taken
    }

    private let state = Mutex<State>(.empty)

    public init() {}

    /// Gives the value (or the error) unless one was given already.
    @discardableResult
    public func give(_ result: Result<Value, any Error>) -> Bool {
        let (accepted, waiter): (Bool, CheckedContinuation<Value, any Error>?) = state.withLock { state in
            switch state {
            case .empty:
                state = .given(result)
                return (true, nil)
            case .waiting(let continuation):
                state = .taken
                return (true, continuation)
            case .given, .taken:
                return (false, nil)
            }
        }
        waiter?.resume(with: result)
        return accepted
    }

    /// Whether a value was given.
    public var isGiven: Bool {
        state.withLock { state in
            switch state {
            case .empty, .waiting: false
            case .given, .taken: true
            }
        }
    }

    /// Waits for the value.
    public func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let given: Result<Value, any Error>? = state.withLock { state in
                if case .given(let result) = state {
                    state = .taken
                    return result
                }
                state = .waiting(continuation)
                return nil
            }
            if let given { continuation.resume(with: given) }
        }
    }
}
