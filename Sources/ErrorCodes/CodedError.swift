/// An error that scripts can rely on: a stable ``ErrorCode`` for JSON output, the audit
/// and metrics, and a `message` for people that is safe to print (no secrets, identifiers
/// masked).
public protocol CodedError: Error, Sendable {
    /// The stable code, such as `wallet.notFound`.
    var code: ErrorCode { get }
    /// What happened, for people. It describes the state; the command line adds the
    /// command to run next.
    var message: String { get }
}

extension CodedError {
    /// The exit status this error leads to.
    public var exitStatus: ExitStatus { code.exitStatus }
}
