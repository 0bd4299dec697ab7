import Foundation
import TestSupport
import Testing

/// `tokenctl activate` against a real TLS endpoint with throwaway certificates: what it
/// trusts, what it refuses (exit 69, `tmp.tls`, nothing reaching the sandbox), mutual
/// TLS, and local TLS files that are a configuration error (78).
@Suite struct TLSTests {
    let certificates: TestCertificates
    let harness: ActivationHarness

    init() async throws {
        certificates = try TestCertificates()
        harness = try await ActivationHarness.start()
        try harness.add("SN1", "DAPL1")
    }

    func endpoint(
        _ kind: TestCertificates.ServerCertificate = .valid, requireClientCertificate: Bool = false
    ) throws -> TLSEndpoint {
        let server = certificates.server(kind)
        return try TLSEndpoint(
            certificate: server.certificate, key: server.key, upstreamPort: harness.sandbox.port,
            clientCA: requireClientCertificate ? certificates.ca : nil)
    }

    func activate(through endpoint: TLSEndpoint, _ tls: [String: String]) throws -> CLIResult {
        var environment = ["TOKENCTL_TMP_BASE_URL": endpoint.baseURL]
        for (key, value) in tls { environment["TOKENCTL_TMP_TLS_" + key] = value }
        return try harness.activate("SN1", environment: environment)
    }

    func expectRefused(_ result: CLIResult, mentioning words: String) {
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.outcome == "ERROR")
        #expect(result.errorCode == "tmp.tls")
        #expect(result.stderr.lowercased().contains(words), "\(result.stderr)")
        #expect(harness.sandbox.activationRequestCount == 0)
    }

    @Test func aValidChainFromTheConfiguredCAIsAccepted() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint()
            let result = try activate(through: endpoint, ["CA_FILE": certificates.ca])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.outcome == "APPROVED")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    @Test func anUnknownCAIsRefusedAndNothingIsSent() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint()
            expectRefused(try activate(through: endpoint, ["CA_FILE": certificates.otherCA]), mentioning: "certificate")
            // The system's trust store does not know the test CA either.
            expectRefused(try activate(through: endpoint, [:]), mentioning: "certificate")
            #expect(try harness.auditEntries().map { $0["errorCode"] as? String } == ["tmp.tls", "tmp.tls"])
            #expect(try harness.state("SN1") == ["requiresActivation"])
        }
    }

    @Test func anExpiredCertificateIsRefused() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint(.expired)
            expectRefused(try activate(through: endpoint, ["CA_FILE": certificates.ca]), mentioning: "expired")
        }
    }

    @Test func aHostNameMismatchIsRefused() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint(.otherHost)
            expectRefused(try activate(through: endpoint, ["CA_FILE": certificates.ca]), mentioning: "127.0.0.1")
        }
    }

    @Test func aServerRequiringAClientCertificateAcceptsOursAndRefusesNone() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint(requireClientCertificate: true)
            // The refusal comes as a TLS alert or, when the connection closes first, without one.
            expectRefused(try activate(through: endpoint, ["CA_FILE": certificates.ca]), mentioning: "certificate")
            let result = try activate(
                through: endpoint,
                [
                    "CA_FILE": certificates.ca, "CLIENT_CERT_FILE": certificates.clientCertificate,
                    "CLIENT_KEY_FILE": certificates.clientKey,
                ])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(harness.sandbox.activationRequestCount == 1)
        }
    }

    @Test func anUnusableClientKeyIsAConfigurationError() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint(requireClientCertificate: true)
            let cli = harness.cli
            let garbage = cli.write("garbage.key", "not a key\n")
            chmod(garbage, 0o600)
            let loose = cli.write("loose.key", try String(contentsOfFile: certificates.clientKey, encoding: .utf8))
            chmod(loose, 0o644)
            let otherKey = cli.write(
                "other.key", try String(contentsOfFile: certificates.server(.valid).key, encoding: .utf8))
            chmod(otherKey, 0o600)
            let cases: [(key: String, certificate: String?, code: String, words: String)] = [
                (
                    cli.directory.file("absent.key"), certificates.clientCertificate, "config.fileUnreadable",
                    "no such file"
                ),
                (cli.directory.path, certificates.clientCertificate, "config.fileUnreadable", "is a directory"),
                (garbage, certificates.clientCertificate, "config.fileInvalid", "pem holding a private key"),
                (loose, certificates.clientCertificate, "config.secretPermissions", "chmod 600"),
                (certificates.clientKey, nil, "config.secretMissing", "needs its certificate"),
                // PEM of the right kind, but not the certificate's key: the TLS library refuses it.
                (otherKey, certificates.clientCertificate, "config.tlsFiles", "key"),
            ]
            for (key, certificate, code, words) in cases {
                var tls = ["CA_FILE": certificates.ca, "CLIENT_KEY_FILE": key]
                tls["CLIENT_CERT_FILE"] = certificate
                let result = try activate(through: endpoint, tls)
                #expect(result.status == 78, "\(key): \(result.stderr)")
                #expect(result.errorCode == code, "\(key): \(result.stdout)")
                #expect(result.stderr.lowercased().contains(words), "\(key): \(result.stderr)")
            }
            #expect(harness.sandbox.activationRequestCount == 0)
            #expect(try harness.state("SN1") == ["requiresActivation"])
        }
    }

    @Test func anUnreadableCAFileIsAConfigurationError() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let endpoint = try endpoint()
            let result = try activate(
                through: endpoint, ["CA_FILE": harness.cli.write("ca.txt", "no certificates here\n")])
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.errorCode == "config.fileInvalid")
            #expect(harness.sandbox.activationRequestCount == 0)
        }
    }
}
