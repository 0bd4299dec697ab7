import Synchronization

/// A value given once and awaited once: how a queued write's result reaches the task that
/// waits for it, and an activation's answer the task that asked, without a thread waiting.
public final class Promise<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case awaited(CheckedContinuation<Value, Never>)
        case given(Value)
    }

    private let state = Mutex(State.empty)

    public init() {}

    /// Gives the value and resumes the task awaiting it; a second value is dropped.
    public func give(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            switch state {
            case .empty:
                state = .given(value)
                return nil
            case .awaited(let continuation):
                state = .given(value)
                return continuation
            case .given:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }

    /// The value, once given. Awaited by one task only.
    public var value: Value {
        get async {
            if case .given(let value) = state.withLock({ $0 }) { return value }
            return await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Value? in
                    switch state {
                    case .given(let value):
                        return value
                    case .empty:
                        state = .awaited(continuation)
                        return nil
                    case .awaited:
                        preconditionFailure("a promise awaited twice")
                    }
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
