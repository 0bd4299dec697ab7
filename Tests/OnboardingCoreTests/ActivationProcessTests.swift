import Foundation
import Sandbox
import TestSupport
import Testing

@testable import OnboardingCore

/// The state table of the activation process against the sandbox's onboarding server.
@Suite struct ActivationProcessTests {
    @Test func startStoresTheProcessAndASecondStartIsInProgress() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            await #expect(try process.hasActiveProcess() == false)

            let started = try await process.start(credentials: Credentials())
            #expect(started.status == .activationInProgress)
            #expect(started.otpResendPeriodSeconds == 30)
            await #expect(try harness.storedProcessID() == started.processID)
            await #expect(try process.hasActiveProcess())

            let again = await onboardingError { _ = try await process.start(credentials: Credentials()) }
            #expect(again?.reason == .activationInProgress)
            #expect(again?.code.rawValue == "onboarding.inProgress")
            #expect(harness.server.processCount == 1)

            // Another installation with the same identification resumes the server's process.
            let other = try await harness.process(instance: "second").start(credentials: Credentials())
            #expect(other.processID == started.processID)
            #expect(try await process.status() == (started.processID, .activationInProgress))
        }
    }

    @Test func withoutAProcessEveryCallButStartIsNotRunning() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            #expect(await onboardingError { _ = try await process.status() }?.reason == .activationNotRunning)
            #expect(
                await onboardingError { _ = try await process.activate(otp: "10000001", pin: harness.pin) }?.reason
                    == .activationNotRunning)
            #expect(await onboardingError { try await process.cancel() }?.reason == .activationNotRunning)
            #expect(await onboardingError { try await process.resendOTP() }?.reason == .activationNotRunning)
            #expect(harness.sandbox.requests.isEmpty)
        }
    }

    @Test func aWrongOTPWithAttemptsLeftKeepsTheProcessAndTheFifthFailsIt() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            for left in (1...4).reversed() {
                let error = await onboardingError { _ = try await process.activate(otp: "99999999", pin: harness.pin) }
                #expect(error?.remainingAttempts == left)
                #expect(error?.code.rawValue == "onboarding.otpInvalid")
                await #expect(try harness.storedProcessID() == id)
            }
            let fifth = await onboardingError { _ = try await process.activate(otp: "99999999", pin: harness.pin) }
            #expect(fifth?.remainingAttempts == 0)
            #expect(fifth?.code.rawValue == "onboarding.processFailed")
            await #expect(try harness.storedProcessID() == nil)
            #expect(harness.server.processStatus(id) == "FAILED")
            #expect(harness.sandbox.powerAuth.activationCount == 0)
        }
    }

    @Test func theRightOTPActivatesWithVerificationPendingAndClearsTheProcess() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            let otp = try await process.demoOTP()
            #expect(otp == harness.server.otp(id))
            #expect(otp.count == 8)

            let activation = try await process.activate(otp: otp, activationName: "test host", pin: harness.pin)
            await #expect(try harness.storedProcessID() == nil)
            #expect(harness.sandbox.powerAuth.activationFlags(activation.activationID) == ["VERIFICATION_PENDING"])
            #expect(try await process.powerAuth.status().flags == ["VERIFICATION_PENDING"])
            #expect(harness.server.processStatus(id) == "VERIFICATION_IN_PROGRESS")

            // The identity attributes the server received name the process and the OTP.
            harness.server.finishVerification(processID: id)
            #expect(try await process.powerAuth.status().flags == [])
            #expect(harness.server.processStatus(id) == "FINISHED")

            // An activated instance cannot start another process.
            let again = await onboardingError { _ = try await process.start(credentials: Credentials()) }
            #expect(again?.reason == .activationCannotActivate)
        }
    }

    @Test func aStoredProcessOnAnActivatedInstanceIsDroppedAsCannotActivate() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let first = try await harness.process()
            let id = try await first.start(credentials: Credentials()).processID
            _ = try await first.activate(otp: try #require(harness.server.otp(id)), pin: harness.pin)
            // A process id stored meanwhile (an older run) is dropped on the next call.
            await #expect(try OnboardingProcessStore(records: harness.store()).insert("stale", instanceID: "default"))
            let error = await onboardingError { _ = try await first.status() }
            #expect(error?.reason == .activationCannotActivate)
            #expect(error?.code.rawValue == "onboarding.cannotActivate")
            await #expect(try harness.storedProcessID() == nil)
        }
    }

    @Test func theProcessExpiresAfterFiveMinutesByTheServersClock() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            harness.clock.advance(seconds: 299)
            #expect(try await process.status().status == .activationInProgress)
            harness.clock.advance(seconds: 2)
            #expect(try await process.status().status == .failed)
            // The OTP no longer activates, and the process is given up.
            let error = await onboardingError {
                _ = try await process.activate(otp: try #require(harness.server.otp(id)), pin: harness.pin)
            }
            #expect(error?.code.rawValue == "onboarding.processFailed")
            await #expect(try harness.storedProcessID() == nil)
        }
    }

    @Test func verificationExpiresAfterAnHourAndTheDeviceActivationIsRemoved() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            _ = try await process.activate(otp: try #require(harness.server.otp(id)), pin: harness.pin)
            harness.clock.advance(seconds: 3_601)
            #expect(harness.server.processStatus(id) == "FAILED")
            #expect(try await process.powerAuth.status().state == "REMOVED")
        }
    }

    @Test func cancelWithAndWithoutForceWhileTheServerIsDown() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let id = try await harness.process().start(credentials: Credentials()).processID
            try harness.serverDown()

            let refused = await onboardingError { try await harness.process().cancel(force: false) }
            #expect(refused?.code.rawValue == "onboarding.unreachable")
            #expect(refused?.isOffline == true)
            await #expect(try harness.storedProcessID() == id)

            #expect(try await harness.process().cancel(force: true) == false)
            await #expect(try harness.storedProcessID() == nil)
            #expect(harness.server.processStatus(id) == "ACTIVATION_IN_PROGRESS")

            // With the server up, cancel reaches it: the process fails there too.
            harness.serverUp()
            let again = try await harness.process().start(credentials: Credentials())
            #expect(again.processID == id)
            #expect(try await harness.process().cancel(force: false) == true)
            #expect(harness.server.processStatus(id) == "FAILED")
            await #expect(try harness.storedProcessID() == nil)
        }
    }

    @Test func anActivationTriedOfflineKeepsTheProcess() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let id = try await harness.process().start(credentials: Credentials()).processID
            try harness.serverDown()
            let error = await onboardingError {
                _ = try await harness.process().activate(otp: "10000001", pin: harness.pin)
            }
            #expect(error?.code.rawValue == "onboarding.unreachable")
            await #expect(try harness.storedProcessID() == id)
        }
    }

    @Test func cleanupRemovesTheDeviceActivationMadeWithTheProcess() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            _ = try await process.activate(otp: try #require(harness.server.otp(id)), pin: harness.pin)
            try await process.api.cleanup(processID: id)
            #expect(harness.server.processStatus(id) == "FAILED")
            #expect(try await process.powerAuth.status().state == "REMOVED")
        }
    }

    @Test(arguments: [true, false])
    func aRestartRestoresTheSessionOnlyWhenAllowed(canRestoreSession: Bool) async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let id = try await harness.process().start(credentials: Credentials()).processID
            // A new process of the app: a new client on the same database file.
            let restarted = try await harness.process(canRestoreSession: canRestoreSession)
            await #expect(try restarted.hasActiveProcess() == canRestoreSession)
            if canRestoreSession {
                #expect(try await restarted.status() == (id, .activationInProgress))
            } else {
                await #expect(try harness.storedProcessID() == nil)
                #expect(await onboardingError { _ = try await restarted.status() }?.reason == .activationNotRunning)
            }
        }
    }

    @Test func resendInsideThePeriodIsRefusedAndAfterItReplacesTheOTP() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let process = try await harness.process()
            let id = try await process.start(credentials: Credentials()).processID
            let first = try #require(harness.server.otp(id))
            harness.clock.advance(seconds: 29)
            let early = await onboardingError { try await process.resendOTP() }
            #expect(early?.serverCode == "ONBOARDING_OTP_FAILED")
            #expect(early?.code.rawValue == "onboarding.resendTooEarly")
            #expect(harness.server.otp(id) == first)

            harness.clock.advance(seconds: 1)
            try await process.resendOTP()
            let second = try #require(harness.server.otp(id))
            #expect(second != first)
            #expect(
                await onboardingError { _ = try await process.activate(otp: first, pin: harness.pin) }?
                    .remainingAttempts
                    == 4)
            _ = try await process.activate(otp: second, pin: harness.pin)
            await #expect(try harness.storedProcessID() == nil)
        }
    }

    @Test func aSixthProcessForOneIdentificationInADayIsRefused() async throws {
        let harness = try await OnboardingHarness()
        try await withTeardown({ try? await harness.stop() }) {
            for _ in 0..<5 {
                let process = try await harness.process()
                _ = try await process.start(credentials: Credentials())
                try await process.cancel(force: false)
            }
            let refused = await onboardingError { _ = try await harness.process().start(credentials: Credentials()) }
            #expect(refused?.httpStatus == 429)
            #expect(refused?.serverCode == "TOO_MANY_ONBOARDING_PROCESSES")
            #expect(refused?.code.rawValue == "onboarding.limitReached")
            await #expect(try harness.storedProcessID() == nil)
            // Another identification is not limited; a day later neither is this one.
            _ = try await harness.process().start(credentials: Credentials(email: "bob@example.com"))
            try await harness.process().cancel()
            harness.clock.advance(seconds: 24 * 60 * 60)
            _ = try await harness.process().start(credentials: Credentials())
        }
    }
}
