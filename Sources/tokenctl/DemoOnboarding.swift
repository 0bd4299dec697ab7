import Foundation
import OnboardingCore
import Sandbox
import TokenActivation

/// The demo's onboarding path: with the gate on, a token waits for the user
/// activation; the user onboards with the OTP; verification ends on the server; the
/// token is activated.
struct DemoOnboarding {
    let sandbox: TMPSandbox
    var settings: Settings
    let directory: String

    static let serial = "SN3000000007"
    static let pin = Array("2580".utf8)

    /// Runs the path and prints each step; answers how many steps went as expected, of how many.
    func run() async throws -> (passed: Int, steps: Int) {
        var settings = settings
        let secretFile = directory + "/application-secret"
        try sandbox.powerAuth.identity.writeApplicationSecret(to: secretFile)
        settings.onboarding.connection.baseURL = sandbox.baseURL
        settings.onboarding.requiresFinishedUserActivation = true
        settings.onboarding.powerAuth.applicationKey = sandbox.powerAuth.identity.applicationKey
        settings.onboarding.powerAuth.applicationSecretFile = secretFile
        settings.onboarding.powerAuth.masterServerPublicKey = sandbox.powerAuth.identity.masterPublicKeyBase64
        _ = try Wallet(settings: settings).add(PassRecordFields(serialNumber: Self.serial, deviceAccountIdentifier: "DAPLONB7Q2M9K0007777", cardSuffix: "7777"))

        var passed = 0
        func step(_ ok: Bool, _ text: String) {
            if ok { passed += 1 }
            Output.line("\(ok ? "ok  " : "FAIL") \(text)")
        }
        let activator = Activator(settings: settings, environment: [:])
        let deeplink = "mybank://activate?serialNumber=\(Self.serial)"
        func activateToken() async -> ActivationResult { await activator.activate(deeplink: deeplink) }

        Output.line("onboarding (onboarding.require-finished-user-activation on)")
        let before = await activateToken()
        step(before.error?.code == .userActivationRequired, "token before onboarding: exit \(before.exitStatus.rawValue), \(before.error?.code.rawValue ?? before.outcome.rawValue)")

        let service = settings.onboardingService(environment: [:], logger: .init(label: "tokenctl.demo"))
        let started = try await service.start(credentials: .object(["email": .string("alice@example.com"), "birthDate": .string("1990-01-31")]))
        step(started.status == .activationInProgress, "onboarding start: process \(started.processID), \(started.status?.rawValue ?? "unknown")")
        let otp = try await service.demoOTP()
        step(otp.count == 8, "OTP read from the sandbox's otp/detail endpoint (\(otp.count) digits)")
        let activated = try await service.activate(otp: otp, name: "tokenctl demo", pin: Self.pin)
        step(activated.flags == ["VERIFICATION_PENDING"], "onboarding activate: device \(activated.activation.activationID), flags \(activated.flags?.joined(separator: ", ") ?? "unknown")")

        let pending = await activateToken()
        step(pending.error?.code == .userActivationRequired, "token while verification is pending: exit \(pending.exitStatus.rawValue), \(pending.error?.code.rawValue ?? pending.outcome.rawValue)")
        sandbox.onboarding.finishVerification(processID: started.processID)
        Output.line("     the sandbox ends identity verification")
        let after = await activateToken()
        step(after.outcome == .approved, "token after onboarding: exit \(after.exitStatus.rawValue), \(after.outcome.rawValue)")
        return (passed, 6)
    }
}
