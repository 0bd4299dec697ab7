import Foundation
import HTTPTransport
import Sandbox
import Storage
import Synchronization
import TestSupport
import Testing
import WalletModel

@testable import OnboardingCore

/// An activation process on a real SQLite file and real libcurl, against the
/// sandbox's onboarding server on a free port with a clock that moves when told.
final class OnboardingHarness: @unchecked Sendable {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let sandbox: TMPSandbox
    let pin = Array("1234".utf8)
    /// Where the client sends; a closed port after ``serverDown()``.
    private(set) var baseURL: String

    var server: OnboardingServer { sandbox.onboarding }

    init(processesPerDay: Int = 5, skipVerification: Bool = false) async throws {
        let clock = clock
        // Predictable, distinct OTPs: 10000001, 10000002, …
        let counter = Mutex(0)
        let makeOTP: @Sendable () -> String = {
            String(
                10_000_000
                    + counter.withLock { value in
                        value += 1
                        return value
                    })
        }
        sandbox = try await TMPSandbox.start(
            port: 0,
            onboarding: OnboardingOptions(
                clock: clock.reader, skipVerification: skipVerification, makeOTP: makeOTP,
                processesPerDay: processesPerDay
            ))
        baseURL = sandbox.baseURL
    }

    /// Later calls go to a port nothing listens on.
    func serverDown() throws {
        baseURL = "http://127.0.0.1:\(try unusedPort())"
    }

    func serverUp() {
        baseURL = sandbox.baseURL
    }

    /// A fresh client, as a new process of the app would make it.
    func process(instance: String = "default", canRestoreSession: Bool = true) async throws -> ActivationProcess {
        let identity = sandbox.powerAuth.identity
        let settings = PowerAuthSettings(
            baseURL: baseURL, applicationKey: identity.applicationKey, applicationSecret: identity.applicationSecret,
            masterServerPublicKey: Array(identity.masterPrivateKey.publicKey.x963Representation), instanceID: instance
        )
        let transport = try CurlTransport(
            options: CurlTransportOptions(connectTimeoutMilliseconds: 1_000, timeoutMilliseconds: 3_000))
        let store = try store()
        return try await ActivationProcess(
            api: OnboardingAPI(baseURL: baseURL, powerAuth: settings, transport: transport),
            powerAuth: PowerAuthClient(settings: settings, transport: transport, store: store),
            store: store, canRestoreSession: canRestoreSession
        )
    }

    /// The database file the processes keep their records in, opened anew.
    func store() throws -> Store {
        try Store(options: StoreOptions(path: directory.file("onboarding.sqlite")))
    }

    /// The stored process id, read from the database file.
    func storedProcessID(instance: String = "default") async throws -> String? {
        try await OnboardingProcessStore(records: store()).processID(instance)
    }

    func stop() async throws {
        try await sandbox.shutdown()
    }
}

struct Credentials: Encodable {
    var email = "alice@example.com"
    var birthDate = "1990-01-31"
}

/// The onboarding error a call failed with.
func onboardingError(_ body: () async throws -> Void) async -> OnboardingError? {
    do {
        try await body()
        return nil
    } catch let error as OnboardingError {
        return error
    } catch {
        Issue.record("expected an OnboardingError, got \(error)")
        return nil
    }
}
