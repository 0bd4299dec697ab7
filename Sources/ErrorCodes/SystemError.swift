#if canImport(Glibc)
import Glibc
#endif

/// The C library's text for an `errno` value, as every message quotes a system call's
/// failure ("No such file or directory").
public enum SystemError {
    /// The text of the calling thread's `errno`, read first.
    public static func text() -> String {
        let code = errno
        return text(code)
    }

    /// The text of `code`.
    public static func text(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "error \(code)" }
        return String(cString: message)
    }
}
