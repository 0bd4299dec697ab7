import HTTPTransport
import Storage

/// The versions of the C libraries tokenctl runs on, for `tokenctl --version`.
public enum LibraryVersions {
    public static var summary: String {
        "\(CurlTransport.libraryVersion), SQLite \(Store.sqliteVersion)"
    }
}
