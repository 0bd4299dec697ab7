import Foundation
import TestSupport
import Testing

/// The service in an operator's hands (DESIGN §8): `config check` checks what `serve`
/// needs, `serve` names a bad TLS file with its code, and server failures reach the log at
/// the default level.
@Suite struct ServiceOperatorTests {
    @Test func configCheckNamesEveryServiceProblemAtOnce() throws {
        let cli = CLI()
        let token = cli.write("service.token", "s3cret\n")
        chmod(token, 0o644)
        let file = cli.write(
            "config.json",
            """
            {"service": {"socket-mode": "0777", "auth": {"bearer-token-file": "service.token"},
                         "tls": {"cert-file": "missing.pem", "key-file": "missing.key"}}}
            """)
        let result = try cli.run("config", "check", "--config", file, "--json")
        #expect(result.status == 78)
        let checks = try #require(try result.jsonObject()["checks"] as? [[String: Any]])
        #expect(checks.contains { $0["part"] as? String == "service" && $0["ok"] as? Bool == false })
        let text = try cli.run("config", "check", "--config", file)
        #expect(text.status == 78)
        #expect(text.stderr.contains("service.socket-mode: 0777"))
        #expect(text.stderr.contains("chmod 600 \(token)"))
        #expect(text.stderr.contains(cli.directory.file("missing.pem")))
        #expect(text.stdout.contains("FAIL  service"))
    }

    @Test func serveNamesAnUnusableTLSFileWith78AndNeverExits1() throws {
        let certificates = try TestCertificates()
        let server = certificates.server(.valid)
        chmod(server.key, 0o600)
        chmod(certificates.clientKey, 0o600)
        let cli = CLI()
        func serve(_ environment: [String: String]) throws -> CLIResult {
            try cli.run(
                ["serve", "--socket", cli.directory.file("s.sock"), "--listen", "127.0.0.1:0"], environment: environment
            )
        }
        // A key that does not belong to the certificate.
        let mismatched = try serve([
            "TOKENCTL_SERVICE_TLS_CERT_FILE": server.certificate,
            "TOKENCTL_SERVICE_TLS_KEY_FILE": certificates.clientKey,
        ])
        #expect(mismatched.status == 78)
        #expect(mismatched.stderr.contains("config.tlsFiles"))
        #expect(mismatched.stderr.contains(certificates.clientKey) && mismatched.stderr.contains(server.certificate))
        // config check (the unit's ExecStartPre) refuses the same pair, as serve loads it.
        let checked = try cli.run(
            ["config", "check"],
            environment: [
                "TOKENCTL_SERVICE_TLS_CERT_FILE": server.certificate,
                "TOKENCTL_SERVICE_TLS_KEY_FILE": certificates.clientKey,
            ])
        #expect(
            checked.status == 78 && checked.stderr.contains("config.tlsFiles")
                && checked.stderr.contains("does not match the certificate"), "\(checked.stderr)")
        // A missing certificate, named with its path.
        let missing = cli.directory.file("nowhere.pem")
        let absent = try serve(["TOKENCTL_SERVICE_TLS_CERT_FILE": missing, "TOKENCTL_SERVICE_TLS_KEY_FILE": server.key])
        #expect(absent.status == 78)
        #expect(absent.stderr.contains(missing))
        // A key others can read.
        chmod(server.key, 0o644)
        let readable = try serve([
            "TOKENCTL_SERVICE_TLS_CERT_FILE": server.certificate, "TOKENCTL_SERVICE_TLS_KEY_FILE": server.key,
        ])
        #expect(readable.status == 78)
        #expect(
            readable.stderr.contains("config.secretPermissions") && readable.stderr.contains("chmod 600 \(server.key)"))
    }

    @Test func aServerFailureIsLoggedAtWarningByDefault() async throws {
        let service = try await ServiceHarness.start(passes: [("SN780001", "SBXERROR5000001")])
        try await withTeardown({ try await service.shutdown() }) {
            let answer = try service.activate("SN780001")
            #expect(answer.status == 502)
            let stopped = try service.stop()
            let line = try #require(
                stopped.stderr.split(separator: "\n").first { $0.contains("activation.failed") }, "\(stopped.stderr)")
            #expect(line.contains("tmp.serverError") && line.contains("warning"))
            #expect(!line.contains("SN780001"))
        }
    }

    @Test func debugLogsNameTheServicesWithoutReflectingThem() async throws {
        let service = try await ServiceHarness.start(arguments: ["--log-level", "debug"])
        try await withTeardown({ try await service.shutdown() }) {
            let stopped = try service.stop()
            #expect(stopped.stderr.contains("ActivationRuntime"))
            #expect(!stopped.stderr.contains("DeeplinkHasher"))
            #expect(!stopped.stderr.contains("HMAC"))
        }
    }

    /// Every way `serve` can fail to start leaves with a documented status and its code on
    /// standard error; none exits 1.
    @Test func everyStartUpFailureHasADocumentedStatus() async throws {
        let service = try await ServiceHarness.start()
        try await withTeardown({ try await service.shutdown() }) { () async throws in
            let cli = CLI()
            let token = cli.write("open.token", "t\n")
            chmod(token, 0o644)
            let cases: [(arguments: [String], environment: [String: String], status: Int32, code: String)] = [
                (["--bogus"], [:], 64, "usage.invalid"),
                (["--listen", "nonsense"], [:], 64, "usage.invalid"),
                (["--socket", service.socket], [:], 75, "service.alreadyRunning"),
                (["--socket", cli.directory.file("no/such/x.sock")], [:], 69, "service.cannotListen"),
                (["--listen", "0.0.0.0:0"], [:], 78, "config.secretMissing"),
                ([], ["TOKENCTL_SERVICE_AUTH_BEARER_TOKEN_FILE": token], 78, "config.secretPermissions"),
                ([], ["TOKENCTL_SERVICE_SOCKET_MODE": "0777"], 78, "config.invalidValue"),
                ([], ["TOKENCTL_DATABASE_PATH": cli.directory.file("no/such/w.sqlite")], 74, "storage."),
                (
                    [], ["TOKENCTL_DATABASE_URL": "postgres://tokenctl@127.0.0.1:1/none?sslmode=disable"], 75,
                    "storage.unreachable"
                ),
            ]
            for (arguments, environment, status, code) in cases {
                let arguments =
                    arguments.contains("--socket") ? arguments : ["--socket", cli.directory.file("s.sock")] + arguments
                let result = try cli.run(["serve"] + arguments, environment: environment)
                #expect(result.status == status, "serve \(arguments) \(environment): \(result.stderr)")
                #expect(result.stderr.contains("(\(code)"), "serve \(arguments) \(environment): \(result.stderr)")
                #expect(result.status != 1)
            }
        }
    }
}
