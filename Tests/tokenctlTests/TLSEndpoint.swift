import Foundation
import TestSupport
import Testing

/// Throwaway certificates made with `openssl` for one test: a CA, server certificates
/// (valid, expired, for another host name), a client certificate, and a second CA that
/// signed nothing of ours.
struct TestCertificates {
    let directory: TemporaryDirectory

    var ca: String { directory.file("ca.pem") }
    var otherCA: String { directory.file("other-ca.pem") }
    var clientCertificate: String { directory.file("client.pem") }
    var clientKey: String { directory.file("client.key") }

    /// The server certificate and key of `kind`.
    func server(_ kind: ServerCertificate) -> (certificate: String, key: String) {
        (directory.file("\(kind.rawValue).pem"), directory.file("server.key"))
    }

    enum ServerCertificate: String {
        case valid, expired
        case otherHost = "other-host"
    }

    init() throws {
        directory = TemporaryDirectory()
        try makeCA("ca")
        try makeCA("other-ca")
        try makeKey("server")
        let loopback = "subjectAltName=IP:127.0.0.1,DNS:localhost"
        try sign("server", as: "valid", subject: "/CN=127.0.0.1", extensions: loopback, days: "2")
        // notAfter one day before notBefore: expired from the start.
        try sign("server", as: "expired", subject: "/CN=127.0.0.1", extensions: loopback, days: "-1")
        try sign(
            "server", as: "other-host", subject: "/CN=tmp.example.com",
            extensions: "subjectAltName=DNS:tmp.example.com", days: "2")
        try makeKey("client")
        try sign(
            "client", as: "client", subject: "/CN=tokenctl client", extensions: "extendedKeyUsage=clientAuth", days: "2"
        )
        chmod(clientKey, 0o600)
    }

    private func makeCA(_ name: String) throws {
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(name).key", "-out", "\(name).pem", "-days", "2", "-subj", "/CN=tokenctl test \(name)",
        ])
    }

    private func makeKey(_ name: String) throws {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
        ])
    }

    private func sign(_ key: String, as name: String, subject: String, extensions: String, days: String) throws {
        _ = FileManager.default.createFile(
            atPath: directory.file("\(name).ext"), contents: Data((extensions + "\n").utf8))
        try openssl([
            "x509", "-req", "-in", "\(key).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial",
            "\(Int.random(in: 1...1_000_000))",
            "-subj", subject, "-days", days, "-extfile", "\(name).ext", "-out", "\(name).pem",
        ])
    }

    /// stderr goes to a file, not a pipe: a child started meanwhile by another test could
    /// inherit the pipe and hold it open.
    private func openssl(_ arguments: [String]) throws {
        let log = directory.file("openssl.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let (process, output) = try SpawnedProcess.reading(
            "/usr/bin/env", ["openssl"] + arguments, directory: directory.path, errorFile: log)
        _ = output.readDataToEndOfFile()
        process.waitUntilExit()
        let message = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(process.terminationStatus == 0, "openssl \(arguments.joined(separator: " ")): \(message)")
    }
}

/// A real TLS endpoint on 127.0.0.1 (OpenSSL through Python's ssl module,
/// `Fixtures/tls_terminator.py`) in front of the plain-HTTP sandbox.
final class TLSEndpoint {
    let process: SpawnedProcess
    let port: Int
    var baseURL: String { "https://127.0.0.1:\(port)" }

    init(certificate: String, key: String, upstreamPort: Int, clientCA: String? = nil) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/tls_terminator.py"
        ).path
        let output: FileHandle
        (process, output) = try SpawnedProcess.reading(
            "/usr/bin/env",
            ["python3", script, "--cert", certificate, "--key", key, "--upstream", "\(upstreamPort)"]
                + (clientCA.map { ["--client-ca", $0] } ?? []))
        var line = Data()
        while let byte = try output.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.count == 2, words[0] == "listening", let port = Int(words[1]) else {
            process.terminate()
            throw TLSEndpointError(message: "tls_terminator.py did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

struct TLSEndpointError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
