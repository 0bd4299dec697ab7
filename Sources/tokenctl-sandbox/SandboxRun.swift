import ArgumentParser
import Dispatch
import ErrorCodes
import Foundation
import Glibc
import Sandbox
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration

/// `tokenctl sandbox` as tokenctl-sandbox runs it: the simulator on 127.0.0.1 until a signal.
struct SandboxRun {
    /// What `tokenctl sandbox --help` says below the abstract.
    static let discussion = """
        The first line on standard output is `listening http://127.0.0.1:PORT`; the next two give \
        the PowerAuth application key and master public key, and the path of a client configuration \
        file (with the application secret in a 0600 file beside it) for `tokenctl --config FILE device …`; \
        the fourth, `witness verifier-key=KEY`, the key of the transparency log witness (POST \
        /add-checkpoint, C2SP tlog-witness) for audit.witnesses. The witness cosigns checkpoints of \
        the logs named with --witness-log after checking their signature and the consistency proof \
        from the size it last cosigned; it refuses a rollback or a fork (409, 422), and its key and \
        memory last as long as the sandbox runs; GET /_sandbox/witness also gives its key. Then one \
        line per request. Ordinary token references are APPROVED; references starting with \
        a marker get its behaviour:
        \(TMPMarker.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
        GET /_sandbox/stats reports how many activation requests arrived. PowerAuth endpoints: \
        /pa/v3/activation/create (custom credentials), /pa/v3/activation/status, /pa/v3/activation/remove, \
        /pa/v3/token/create, /pa/v3/token/validate, /pa/v3/signature/validate, /pa/v3/status. \
        Identity verification (the enrollment server's /api/identity/…: status, consent/text, \
        consent/approve, init, document/init-sdk, document/submit, document/status, \
        presence-check/init and submit, otp/verify, otp/resend, otp/detail, cleanup), a background \
        step every --verification-step-seconds; a document image holding a marker gets its behaviour:
        \(DocumentMarker.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))
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

    let options: SandboxOptions

    func run() async throws {
        var prepared: (directory: String, identity: PowerAuthServerIdentity)?
        try await reportingErrors(json: false) { prepared = try prepareState() }
        guard let (directory, identity) = prepared else { return }
        // A temporary directory holds the application secret: it goes when the sandbox does.
        let temporary = options.powerAuthDirectory == nil ? directory : nil
        let stopper = SandboxStopper(removing: temporary)
        defer { stopper.cleanUp() }
        let sandbox: TMPSandbox
        do {
            sandbox = try await TMPSandbox.start(
                port: options.port, slowDelay: .milliseconds(options.slowDelayMilliseconds),
                powerAuth: PowerAuthServer(identity: identity),
                onboarding: OnboardingOptions(
                    skipVerification: options.skipVerification,
                    verificationStepInterval: options.verificationStepSeconds, presenceCheck: !options.noPresenceCheck
                ), witness: WitnessServer(logs: options.witnessLogs.compactMap(TrustedLogKey.init(verifierKey:)))
            ) { line in
                Output.line(line)
                Output.flush()
            }
        } catch {
            try await reportingErrors(json: false) { throw SandboxListenError(port: options.port, error: error) }
            return
        }
        var written: String?
        try await reportingErrors(json: false) {
            do {
                written = try writeClientConfiguration(
                    identity: identity, directory: directory, baseURL: sandbox.baseURL)
            } catch {
                throw SandboxStateError(
                    "cannot write the client configuration in \(directory): \(SandboxStateError.reason(error))")
            }
        }
        guard let configPath = written else { return }
        // Signals are handled before the sandbox announces itself: whoever waits for the
        // announcement and then stops it is never lost in between.
        stopper.onSignal()
        Output.line("listening \(sandbox.baseURL)")
        Output.line(
            "powerauth application-key=\(identity.applicationKey) master-server-public-key=\(identity.masterPublicKeyBase64)"
        )
        Output.line("powerauth client configuration \(configPath)")
        Output.line("witness verifier-key=\(sandbox.witness.verifierKey)")
        Output.flush()
        try await sandbox.waitUntilClosed()
    }

    /// The PowerAuth directory (made 0700 when missing) and the server identity in it (made
    /// when missing); `sandbox.stateUnusable` (78) naming what is wrong otherwise.
    private func prepareState() throws -> (directory: String, identity: PowerAuthServerIdentity) {
        let directory = try prepareDirectory()
        let path = directory + "/server-identity.json"
        do {
            return (directory, try PowerAuthServerIdentity.loadOrCreate(path: path))
        } catch {
            if FileManager.default.fileExists(atPath: path) {
                throw SandboxStateError(
                    "\(path) is not a sandbox identity (\(SandboxStateError.reason(error))); remove it to start with a new identity, or name another --powerauth-dir"
                )
            }
            throw SandboxStateError("cannot write \(path): \(SandboxStateError.reason(error))")
        }
    }

    private func prepareDirectory() throws -> String {
        if let powerAuthDirectory = options.powerAuthDirectory {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: powerAuthDirectory, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw SandboxStateError(
                        "--powerauth-dir \(powerAuthDirectory) is a file, not a directory; name a directory (it is made when missing)"
                    )
                }
            } else if mkdir(powerAuthDirectory, 0o700) != 0 {
                let reason = SystemError.text()
                throw SandboxStateError(
                    "--powerauth-dir \(powerAuthDirectory) cannot be made: \(reason) (its parent directory must exist and be writable)"
                )
            }
            // The client configuration names files in it; relative names would be read
            // relative to the configuration file instead.
            return URL(fileURLWithPath: powerAuthDirectory).standardizedFileURL.path
        }
        var template = Array(
            ((NSTemporaryDirectory() as NSString).appendingPathComponent("tokenctl-sandbox-XXXXXX")).utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ValidationError("cannot create a temporary directory for the PowerAuth identity")
        }
        return String(cString: made)
    }

    /// A configuration file pointing a client at this sandbox, with the secret beside it.
    private func writeClientConfiguration(
        identity: PowerAuthServerIdentity, directory: String, baseURL: String
    ) throws -> String {
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

/// The PowerAuth directory or the identity in it cannot be used (78).
struct SandboxStateError: CodedError {
    let code = ErrorCode.sandboxStateUnusable
    let message: String

    init(_ message: String) {
        self.message = message
    }

    /// A file error in words: the POSIX reason when there is one, else the error's own text.
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix = underlying, posix.domain == NSPOSIXErrorDomain {
            return SystemError.text(Int32(posix.code))
        }
        if error is DecodingError { return "not the JSON it writes" }
        if let cocoa = error as? CocoaError, cocoa.code == .fileWriteNoPermission { return "permission denied" }
        return "\(error)".prefix(120).description
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
            message =
                "port \(port) on 127.0.0.1 is already in use; stop what holds it, pick another with --port, or --port 0 for any free one"
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
        SandboxStopper.paths =
            directory.map { directory in
                ["application-secret", "server-identity.json", "client-config.json"].map {
                    strdup(directory + "/" + $0)
                } + [strdup(directory)]
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
