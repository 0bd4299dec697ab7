/// The activation state of a wallet pass.
public enum PassState: String, Sendable, CaseIterable {
    /// Waiting for its token to be activated (the default for new records).
    case requiresActivation
    /// An activation request is in flight.
    case activating
    /// TMP approved the activation.
    case activated
    /// Temporarily unusable; never sent to TMP.
    case suspended
    /// Permanently unusable; never sent to TMP.
    case deactivated

    /// The names accepted on input, for messages.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// The state a driver read from a stored record.
    /// - Throws: `storage.corrupt` for a name this tokenctl does not know: a record is never
    ///   read as another state than the one stored.
    public static func stored(_ name: String?) throws(StorageError) -> PassState {
        guard let name, let state = PassState(rawValue: name) else {
            throw StorageError(.storageCorrupt, "a wallet record has the unknown state \(name ?? "NULL")")
        }
        return state
    }
}
