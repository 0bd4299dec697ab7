import ArgumentParser
import Foundation
import Glibc
import Dispatch
import ErrorCodes
import Sandbox
import TokenctlApp

struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run the loopback TMP, PowerAuth and onboarding simulator on 127.0.0.1.",
        discussion: """
            The first line on standard output is `listening http://127.0.0.1:PORT`; the next two give \
            the PowerAuth application key and master public key, and the path of a client configuration \
            file (with the application secret in a 0600 file beside it) for `tokenctl --config FILE device …`. \
            Then one line per request. Ordinary token references are APPROVED; references starting with \
            a marker get its behaviour:
            \(TMPMarker.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
            GET /_sandbox/stats reports how many activation requests arrived. PowerAuth endpoints: \
            /pa/v3/activation/create (custom credentials), /pa/v3/activation/status, /pa/v3/activation/remove, \
            /pa/v3/token/create, /pa/v3/token/validate, /pa/v3/signature/validate, /pa/v3/status. \
            Identity verification (built endpoint by endpoint): /api/identity/status with the device's token. \
            Onboarding endpoints (ECIES application scope): /api/onboarding/start, status, otp/resend, \
            cleanup and the demo otp/detail; each OTP is also printed as a line \
            `onboarding otp process=ID code=OTP`, as a test SMS gateway would. A device activated \
            through onboarding carries VERIFICATION_PENDING unless --skip-verification. The MIRACL platform of \
            the PIN login (client id sandbox-client): /rps/clientSettings, /authorize, /rps/user, \
            /rps/signature, the second D-TA /dta2/clientSecret, /rps/codeStatus, /rps/pass1, /rps/pass2, \
            /rps/authenticate, /oidc/token; its relying party /rp/authzurl and /rp/authtoken. Each confirmation \
            e-mail is printed as a line `mpin: confirmation e-mail to USER: LINK`; GET \
            /_sandbox/mpin/email?userId=USER returns the latest link, and opening the link confirms.
            """
    )

    @Option(help: "Port to listen on (0 to 65535); 0 picks a free one.")
    var port: Int = 8787

    @Option(name: .customLong("slow-delay-ms"), help: "How long SBXSLOW references wait before answering; the default outlasts the default tmp.timeout-ms.")
    var slowDelayMilliseconds: Int = 20_000

    @Option(
        name: .customLong("powerauth-dir"),
        help: ArgumentHelp("Keep the PowerAuth server identity in this directory (created 0700): loaded when present, generated otherwise. Default: a new temporary directory, so a fresh identity.", valueName: "dir"),
        completion: .directory
    )
    var powerAuthDirectory: String?

    @Flag(name: .customLong("skip-verification"), help: "Finish onboarding processes at activation, so devices carry no VERIFICATION_PENDING flag (quick manual tries only).")
    var skipVerification = false

    @Option(name: .customLong("verification-step-seconds"), help: ArgumentHelp("Seconds between identity verification's background steps (0: at once).", valueName: "seconds"))
    var verificationStepSeconds: Double = 3

    @Flag(name: .customLong("no-presence-check"), help: "Identity verification without a presence check.")
    var noPresenceCheck = false

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard slowDelayMilliseconds >= 0 else { throw ValidationError("--slow-delay-ms must not be negative") }
        guard (0...3_600).contains(verificationStepSeconds) else { throw ValidationError("--verification-step-seconds must be between 0 and 3600") }
    }

    func run() async throws {
        let directory = try prepareDirectory()
        // A temporary directory holds the application secret: it goes when the sandbox does.
        let temporary = powerAuthDirectory == nil ? directory : nil
        let stopper = SandboxStopper(removing: temporary)
        defer { stopper.cleanUp() }
        let identity = try PowerAuthServerIdentity.loadOrCreate(path: directory + "/server-identity.json")
        let sandbox: TMPSandbox
        do {
            sandbox = try await TMPSandbox.start(port: port, slowDelay: .milliseconds(slowDelayMilliseconds), powerAuth: PowerAuthServer(identity: identity), onboarding: OnboardingOptions(
                skipVerification: skipVerification, verificationStepInterval: verificationStepSeconds, presenceCheck: !noPresenceCheck
            )) { line in
                Output.line(line)
                Output.flush()
            }
        } catch {
            try await reportingErrors(json: false) { throw SandboxListenError(port: port, error: error) }
            return
        }
        let configPath = try writeClientConfiguration(identity: identity, directory: directory, baseURL: sandbox.baseURL)
        // Signals are handled before the sandbox announces itself: whoever waits for the
        // announcement and then stops it is never lost in between.
        stopper.onSignal()
        Output.line("listening \(sandbox.baseURL)")
        Output.line("powerauth application-key=\(identity.applicationKey) master-server-public-key=\(identity.masterPublicKeyBase64)")
        Output.line("powerauth client configuration \(configPath)")
        Output.flush()
        try await sandbox.waitUntilClosed()
    }

    private func prepareDirectory() throws -> String {
        if let powerAuthDirectory {
            if !FileManager.default.fileExists(atPath: powerAuthDirectory) {
                try FileManager.default.createDirectory(atPath: powerAuthDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            }
            // The client configuration names files in it; relative names would be read
            // relative to the configuration file instead.
            return URL(fileURLWithPath: powerAuthDirectory).standardizedFileURL.path
        }
        var template = Array((NSTemporaryDirectory() + "/tokenctl-sandbox-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ValidationError("cannot create a temporary directory for the PowerAuth identity") }
        return String(cString: made)
    }

    /// A configuration file pointing a client at this sandbox, with the secret beside it.
    private func writeClientConfiguration(identity: PowerAuthServerIdentity, directory: String, baseURL: String) throws -> String {
        let secretPath = directory + "/application-secret"
        try identity.writeApplicationSecret(to: secretPath)
        let path = directory + "/client-config.json"
        try ClientConfiguration.sandbox(
            baseURL: baseURL, applicationKey: identity.applicationKey, applicationSecretFile: secretPath,
            masterServerPublicKey: identity.masterPublicKeyBase64
        ).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Why the sandbox could not listen: the port taken (75) or anything else (69).
struct SandboxListenError: CodedError {
    let code: ErrorCode
    let message: String

    init(port: Int, error: any Error) {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
            code = .sandboxPortInUse
            message = "port \(port) on 127.0.0.1 is already in use; stop what holds it, pick another with --port, or --port 0 for any free one"
        } else {
            code = .sandboxCannotListen
            message = "cannot listen on 127.0.0.1:\(port): \(text.prefix(160))"
        }
    }
}

/// SIGINT and SIGTERM stop the sandbox, and its temporary directory (with the application
/// secret) is removed on every way out. The handler only unlinks the known files, removes
/// the directory and exits: async-signal-safe calls, so no signal is lost to a dispatch
/// source that is not yet listening.
final class SandboxStopper: @unchecked Sendable {
    private let directory: String?

    init(removing directory: String?) {
        self.directory = directory
    }

    /// Installs the handlers (the sandbox's own files are named from `directory`).
    func onSignal() {
        SandboxStopper.paths = directory.map { directory in
            ["application-secret", "server-identity.json", "client-config.json"].map { strdup(directory + "/" + $0) } + [strdup(directory)]
        } ?? []
        for number in [SIGINT, SIGTERM] {
            signal(number) { _ in
                let paths = SandboxStopper.paths
                for (index, path) in paths.enumerated() {
                    guard let path else { continue }
                    if index == paths.count - 1 { rmdir(path) } else { unlink(path) }
                }
                _exit(0)
            }
        }
    }

    func cleanUp() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Read by the signal handler, which can capture nothing.
    nonisolated(unsafe) static var paths: [UnsafeMutablePointer<CChar>?] = []
}
