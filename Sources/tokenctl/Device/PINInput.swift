import ErrorCodes
import Glibc
import OnboardingCore
import TokenctlCommandLine

/// Where a PIN comes from: `--pin-file` (a file only its owner can read), or a
/// prompt without echo on the controlling terminal. Never a command-line argument.
enum PINInput {
    /// - Parameter invalid: the error for a missing or unreadable PIN, in the caller's domain
    ///   (`powerauth.invalidPIN` by default, `login.invalidPIN` for the PIN login).
    static func read(
        file: String?, confirm: Bool = false, invalid: (String) -> any Error = PowerAuthClientError.invalidPIN
    ) throws -> [UInt8] {
        do {
            if let file { return try fromFile(file) }
            guard isatty(STDIN_FILENO) == 1 else {
                throw PowerAuthClientError.invalidPIN(
                    "no PIN: give --pin-file FILE (mode 0600), or run on a terminal to be asked")
            }
            let pin = try prompt("PIN: ")
            if confirm, try prompt("PIN again: ") != pin {
                throw PowerAuthClientError.invalidPIN("the two PINs differ")
            }
            return pin
        } catch let error as PowerAuthClientError {
            throw invalid(error.message)
        }
    }

    private static func fromFile(_ path: String) throws -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw PowerAuthClientError.invalidPIN(
                "--pin-file \(path) cannot be read: \(SystemError.text())")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw PowerAuthClientError.invalidPIN(
                "--pin-file \(path) is not a regular file; name the file holding the PIN")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw PowerAuthClientError.invalidPIN("--pin-file \(path) is readable by group or others; chmod 600 it")
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw PowerAuthClientError.invalidPIN("--pin-file \(path) cannot be opened") }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        guard count > 0 else { throw PowerAuthClientError.invalidPIN("--pin-file \(path) is empty") }
        var pin = Array(buffer[..<count])
        while let last = pin.last, last == 0x0A || last == 0x0D { pin.removeLast() }
        guard !pin.isEmpty else { throw PowerAuthClientError.invalidPIN("--pin-file \(path) is empty") }
        return pin
    }

    /// Reads one line from the terminal with echo turned off.
    private static func prompt(_ text: String) throws -> [UInt8] {
        // Echo goes off before the prompt appears, so nothing typed after it is echoed
        // or discarded; typed-ahead input from before the prompt is flushed.
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        writeAll(STDERR_FILENO, text)
        defer {
            if isTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            writeAll(STDERR_FILENO, "\n")
        }
        var pin: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1, byte != 0x0A, byte != 0x0D {
            pin.append(byte)
            if pin.count > 256 { break }
        }
        guard !pin.isEmpty else { throw PowerAuthClientError.invalidPIN("no PIN entered") }
        return pin
    }
}
