import ErrorCodes
import Glibc

/// Reading the files a setting names: secrets (token, API key, client key) and TLS material.
public enum SecretFile {
    /// Refuses a file that group or others may read, with the command that fixes it.
    public static func checkPrivate(_ path: String, key: String) throws(ConfigurationError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .fileUnreadable(key: key, path: path, reason: SystemError.text(), isSecret: true)
        }
        guard info.st_mode & 0o077 == 0 else { throw .secretPermissions(path, key: key) }
    }

    /// The file's text (UTF-8), at most `limit` bytes of it.
    public static func read(
        _ path: String, key: String, limit: Int, isSecret: Bool
    ) throws(ConfigurationError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .fileUnreadable(key: key, path: path, reason: SystemError.text(), isSecret: isSecret)
        }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, limit - count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(
                    key: key, path: path, reason: SystemError.text(), isSecret: isSecret)
            }
            if got == 0 { break }
            count += got
        }
        guard let text = String(validating: bytes[..<count], as: UTF8.self) else {
            throw .fileInvalid(key: key, path: path, expected: "UTF-8 text")
        }
        return text
    }

    /// A secret from its file (which must be private to its owner) or, without a file,
    /// from the environment variable; trailing white space removed.
    ///
    /// - Returns: nil when neither gives one.
    public static func secret(
        file: String?, key: String, variable: String, environment: [String: String]
    ) throws(ConfigurationError) -> String? {
        if let path = file {
            try checkPrivate(path, key: key)
            let value = try read(path, key: key, limit: 8192, isSecret: true).trimmingTrailingWhitespace
            guard !value.isEmpty else { throw .secretMissing("\(key) names \(path), which is empty") }
            return value
        }
        if let value = environment[variable]?.trimmingTrailingWhitespace, !value.isEmpty {
            return value
        }
        return nil
    }
}

private extension String {
    var trimmingTrailingWhitespace: String {
        var text = Substring(self)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
