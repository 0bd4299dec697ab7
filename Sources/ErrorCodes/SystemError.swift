#if canImport(Glibc)
import Glibc
#endif

/// The C library's text for an `errno` value, as every message quotes a system call's
/// failure ("No such file or directory").
public enum SystemError {
    /// The text of `code`: by default, the calling thread's `errno` at the call.
    public static func text(_ code: Int32 = errno) -> String {
        SystemError.text(code)
    }
}
