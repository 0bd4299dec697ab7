import Foundation
import OnboardingCore
import Sandbox
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

/// The demo's onboarding path: with the gate on, a token waits for the user
/// activation; the user onboards with the OTP and verifies their identity; the
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
        _ = try await Wallet(settings: settings).add(
            PassRecordFields(
                serialNumber: Self.serial, deviceAccountIdentifier: "DAPLONB7Q2M9K0007777", cardSuffix: "7777"))

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
        step(
            before.error?.code == .userActivationRequired,
            "token before onboarding: exit \(before.exitStatus.rawValue), \(before.error?.code.rawValue ?? before.outcome.rawValue)"
        )

        let service = settings.onboardingService(environment: [:], logger: .init(label: "tokenctl.demo"))
        let started = try await service.start(
            credentials: .object(
                JSONObject(["email": .string("alice@example.com"), "birthDate": .string("1990-01-31")])))
        step(
            started.status == .activationInProgress,
            "onboarding start: process \(started.processID), \(started.status?.rawValue ?? "unknown")")
        let otp = try await service.demoOTP()
        step(otp.count == 8, "OTP read from the sandbox's otp/detail endpoint (\(otp.count) digits)")
        let activated = try await service.activate(otp: otp, name: "tokenctl demo", pin: Self.pin)
        step(
            activated.flags == ["VERIFICATION_PENDING"],
            "onboarding activate: device \(activated.activation.activationID), flags \(activated.flags?.joined(separator: ", ") ?? "unknown")"
        )

        let pending = await activateToken()
        step(
            pending.error?.code == .userActivationRequired,
            "token while verification is pending: exit \(pending.exitStatus.rawValue), \(pending.error?.code.rawValue ?? pending.outcome.rawValue)"
        )
        // `step` counts the verification's steps too.
        let verified = try await verifyIdentity(settings: settings, step)
        let after = await activateToken()
        step(
            after.outcome == .approved,
            "token after onboarding: exit \(after.exitStatus.rawValue), \(after.outcome.rawValue)")
        return (passed, 6 + verified)
    }

    /// Identity verification through the verification service, as `tokenctl verification`
    /// runs it: consent, three generated document images, presence check, the OTP.
    private func verifyIdentity(settings: Settings, _ check: (Bool, String) -> Void) async throws -> Int {
        let service = settings.verificationService(environment: [:], logger: .init(label: "tokenctl.demo"))
        let files = try [(DocumentType.idCard, DocumentSide.front), (.idCard, .back), (.passport, .front)].map {
            type, side in
            let path = directory + "/\(type.rawValue.lowercased())-\(side.rawValue.lowercased()).jpg"
            // A stand-in image: JPEG start and end markers around a label.
            try (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("sample \(type) \(side)".utf8) + Data([0xFF, 0xD9])).write(
                to: URL(fileURLWithPath: path))
            return DocumentImageFile(type: type, side: side, path: path)
        }
        try await service.withProcess { process in
            check(try await process.status() == .intro, "verification status: intro")
            let consent = try await process.consentText()
            check(!consent.isEmpty, "verification consent: \(consent.count) characters of text")
            check(try await process.approveConsent() == .documentsToScanSelect, "consent approved: documents to choose")
            _ = try await process.selectDocumentTypes([.idCard, .passport])
            _ = try await process.submitDocuments(files, reupload: false)
            check(
                try await process.status() == .presenceCheck,
                "ID card front and back and passport submitted (one ZIP), checked: presence check")
            _ = try await process.presenceCheckInit()
            _ = try await process.presenceCheckSubmit()
            let otpState = try await process.status()
            check({ if case .otp = otpState { true } else { false } }(), "presence check done: verification OTP sent")
            _ = try await process.verifyOTP(try await process.demoOTP())
            check(try await process.status() == .success, "verification OTP verified: success, flags cleared")
        }
        return 6
    }
}
