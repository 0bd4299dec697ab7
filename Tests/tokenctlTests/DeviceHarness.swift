import Foundation
import Sandbox
import TestSupport
import Testing

/// The real `tokenctl` binary pointed at an in-process sandbox's PowerAuth server,
/// with its application secret in a 0600 file and a PIN file.
struct DeviceHarness {
    let sandbox: TMPSandbox
    var cli = CLI()
    let pinFile: String
    let wrongPinFile: String
    /// The PostgreSQL database, when the harness runs on one.
    var postgres: TestPostgres.Database?

    var server: PowerAuthServer { sandbox.powerAuth }

    static func start(
        identityCheck: @escaping IdentityCheck = IdentityChecks.acceptNonEmpty,
        onboarding: OnboardingOptions = OnboardingOptions(), backend: Backend = .sqlite
    ) async throws -> DeviceHarness {
        let identity = PowerAuthServerIdentity.generate()
        let sandbox = try await TMPSandbox.start(
            port: 0, powerAuth: PowerAuthServer(identity: identity, identityCheck: identityCheck),
            onboarding: onboarding)
        var harness = DeviceHarness(sandbox: sandbox, pinFile: "", wrongPinFile: "")
        let secretFile = harness.cli.directory.file("application-secret")
        try identity.writeApplicationSecret(to: secretFile)
        harness.cli.environment.merge([
            "TOKENCTL_ONBOARDING_BASE_URL": sandbox.baseURL,
            "TOKENCTL_TMP_BASE_URL": sandbox.baseURL,
            "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_KEY": identity.applicationKey,
            "TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET_FILE": secretFile,
            "TOKENCTL_ONBOARDING_POWERAUTH_MASTER_SERVER_PUBLIC_KEY": identity.masterPublicKeyBase64,
        ]) { $1 }
        let postgres = try backend.prepare(&harness.cli)
        return DeviceHarness(
            sandbox: sandbox, cli: harness.cli,
            pinFile: try harness.privateFile("pin", "1234\n"),
            wrongPinFile: try harness.privateFile("wrong-pin", "9999\n"),
            postgres: postgres
        )
    }

    func privateFile(_ name: String, _ contents: String, mode: Int = 0o600) throws -> String {
        let path = cli.directory.file(name)
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(contents.utf8), attributes: [.posixPermissions: mode]))
        return path
    }

    @discardableResult
    func device(_ arguments: String...) throws -> CLIResult {
        try cli.run(["device"] + arguments)
    }

    @discardableResult
    func onboarding(_ arguments: String..., environment: [String: String] = [:]) throws -> CLIResult {
        try cli.run(["onboarding"] + arguments, environment: environment)
    }

    /// `device activate` as alice, checked to succeed; returns the activation id.
    func activate() throws -> String {
        let result = try device("activate", "--attribute", "username=alice", "--pin-file", pinFile, "--json")
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try result.jsonObject()["activationId"] as? String)
    }

    func status() throws -> [String: Any] {
        let result = try device("status", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        return try result.jsonObject()
    }

    func shutdown() async throws {
        try await sandbox.shutdown()
    }
}
