import Storage

/// An error that scripts can rely on: a stable `code` (no interpolated values) for JSON
/// output, the audit and metrics, and a `message` for people that is safe to print.
public protocol CodedError: Error, Sendable {
    /// Stable dotted code, such as `wallet.notFound`.
    var code: String { get }
    /// Human-readable explanation without secrets or unmasked identifiers.
    var message: String { get }
}

extension StorageError: CodedError {}
