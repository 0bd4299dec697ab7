import HTTPTransport
import Storage

/// The versions of the C libraries tokenctl runs on, for `tokenctl --version`.
public enum LibraryVersions {
    /// This tokenctl's version, the same for `tokenctl` and `tokenctl-serve`.
    public static let tokenctl = "0.1.0"

    public static var summary: String {
        "\(CurlTransport.libraryVersion), SQLite \(Store.sqliteVersion)"
    }
}
