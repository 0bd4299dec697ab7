import ErrorCodes
import Foundation
import HTTPTransport
import Sandbox
import Storage
import TestSupport
import Testing
import WalletModel

@testable import OnboardingCore

/// The PIN login end to end against the sandbox's MIRACL platform and relying party.
@Suite struct LoginFlowTests {
    @Test func aRegisteredUserLogsInAndTheRelyingPartyAcceptsIt() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let service = harness.service()

            let started = try await service.register(identity: harness.identity, deviceName: "test-device")
            #expect(started.state == .startedRegistration)
            #expect(started.nextStep == .confirmLogin)
            try await harness.openEmailLink()
            #expect(try await service.confirm().state == .activated)
            #expect(try await service.setPIN(harness.pin).state == .registered)

            let outcome = try await service.logIn(pin: harness.pin)
            #expect(outcome.identity == harness.identity)
            #expect(outcome.requests == 7)
            let status = try await service.status()
            // Stored to the second.
            #expect(abs(try #require(status.lastLoginAt).timeIntervalSince(harness.clock.now())) < 1)
            #expect(status.failedAttempts == 0)
            let row = try #require(try harness.storedRow())
            #expect((row["last_login_answer"] as String?)?.contains(#""status":"OK""#) == true)
        }
    }

    @Test func confirmBeforeTheEmailLinkIsNotConfirmedAndChangesNothing() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let service = harness.service()
            _ = try await service.register(identity: harness.identity, deviceName: "test-device")

            let error = await loginError { _ = try await service.confirm() }
            #expect(error?.code == .loginNotConfirmed)
            #expect(error?.nextStep == .confirmLogin)
            #expect(try await service.status().state == .startedRegistration)
            #expect(try harness.storedRow()?["secret"] as String? == nil)
        }
    }

    @Test func resendingTheEmailReplacesTheLinkAndTheTicket() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let service = harness.service()
            _ = try await service.register(identity: harness.identity, deviceName: "test-device")
            let firstLink = try await harness.emailLink()
            let firstTicket: String? = try harness.storedRow()?["reg_ott"]

            #expect(try await service.resendEmail().state == .startedRegistration)
            let secondLink = try await harness.emailLink()
            #expect(secondLink != firstLink)
            #expect(try harness.storedRow()?["reg_ott"] as String? != firstTicket)
            let stale = try await harness.send(HTTPRequest(method: "GET", url: firstLink, headers: [], body: []))
            #expect(stale.status == 404)
            try await harness.openEmailLink()
            #expect(try await service.confirm().state == .activated)
        }
    }

    @Test func aCallInTheWrongStateSendsNothingAndChangesNothing() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let service = harness.service()

            let noUser = await loginError { _ = try await service.logIn(pin: harness.pin) }
            #expect(noUser?.code == .loginNoUser)
            #expect(harness.loginRequestCount == 0)

            _ = try await service.register(identity: harness.identity, deviceName: "test-device")
            let before = harness.loginRequestCount
            let rowBefore = try harness.storedRow()
            for call in [
                { _ = try await service.setPIN(harness.pin) },
                { _ = try await service.logIn(pin: harness.pin) },
            ] as [() async throws -> Void] {
                let error = await loginError(call)
                #expect(error?.code == .loginWrongState)
                #expect(error?.nextStep == .confirmLogin)
            }
            #expect(harness.loginRequestCount == before)
            #expect(try harness.storedRow() == rowBefore)
        }
    }

    @Test func oneUserPerInstallationAndABlockedUserIsReplacedAtRegistration() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let service = harness.service()
            let rowBefore = try harness.storedRow()

            let again = await loginError {
                _ = try await service.register(identity: "bob@example.com", deviceName: "d")
            }
            #expect(again?.code == .loginUserExists)
            #expect(again?.nextStep == .deleteLogin)
            #expect(try harness.storedRow() == rowBefore)

            #expect(try await service.delete())
            #expect(try await service.delete() == false)
            #expect(try await service.status().state == .invalid)
            #expect(try await service.status().hasUser == false)
            #expect(
                try await service.register(identity: "bob@example.com", deviceName: "d").identity == "bob@example.com")
        }
    }

    @Test func threeWrongPINsBlockTheIdentityAndDeleteItsToken() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let service = harness.service()
            let wrong = Array("1111".utf8)

            let first = await loginError { _ = try await service.logIn(pin: wrong) }
            #expect(first?.code == .loginWrongPIN)
            #expect(first?.attemptsLeft == 2)
            let second = await loginError { _ = try await service.logIn(pin: Array("2222".utf8)) }
            #expect(second?.code == .loginWrongPIN)
            #expect(second?.attemptsLeft == 1)
            let third = await loginError { _ = try await service.logIn(pin: Array("3333".utf8)) }
            #expect(third?.code == .loginBlocked)
            #expect(third?.nextStep == .deleteLoginAndRegister)

            #expect(harness.platform.isBlocked(userID: harness.identity))
            #expect(try await service.status().state == .blocked)
            let row = try #require(try harness.storedRow())
            #expect(row["secret"] as String? == nil)
            let afterBlock = await loginError { _ = try await service.logIn(pin: harness.pin) }
            #expect(afterBlock?.code == .loginWrongState)
            #expect(afterBlock?.nextStep == .deleteLoginAndRegister)
            // A blocked user is replaced by a new registration.
            #expect(
                try await service.register(identity: harness.identity, deviceName: "d").state == .startedRegistration)
        }
    }

    @Test func aSuccessResetsTheCountOfWrongPINs() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let service = harness.service()
            let wrong = Array("9999".utf8)

            _ = await loginError { _ = try await service.logIn(pin: wrong) }
            _ = await loginError { _ = try await service.logIn(pin: wrong) }
            _ = try await service.logIn(pin: harness.pin)
            #expect(try await service.status().failedAttempts == 0)
            let afterReset = await loginError { _ = try await service.logIn(pin: wrong) }
            #expect(afterReset?.code == .loginWrongPIN)
            #expect(afterReset?.attemptsLeft == 2)
            #expect(!harness.platform.isBlocked(userID: harness.identity))
        }
    }

    @Test(arguments: [IDTokenDefect.forged, .expired, .wrongAudience, .unknownNonce])
    func theRelyingPartyRefusesABadIDToken(defect: IDTokenDefect) async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let service = harness.service()
            harness.platform.injectIDTokenDefect(defect)

            let error = await loginError { _ = try await service.logIn(pin: harness.pin) }
            #expect(error?.code == .loginRefused)
            #expect(try await service.status().lastLoginAt == nil)
            // The next, sound id_token is accepted.
            _ = try await service.logIn(pin: harness.pin)
        }
    }

    @Test func aPINOutsideFourToTwelveDigitsIsRefusedBeforeAnythingIsSent() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let before = harness.loginRequestCount
            for pin in ["12", "12ab", "1234567890123"] {
                let error = await loginError { _ = try await harness.service().logIn(pin: Array(pin.utf8)) }
                #expect(error?.code == .loginInvalidPIN)
            }
            #expect(harness.loginRequestCount == before)
        }
    }

    @Test func anUnknownClientIDIsNamedInTheError() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) { () async throws in
            var settings = harness.settings
            settings.clientID = "someone-else"
            let error = await loginError {
                _ = try await harness.service(settings: settings).register(identity: harness.identity, deviceName: "d")
            }
            #expect(error?.code == .loginProtocol)
            #expect(error?.message.contains("login.client-id") == true)
            #expect(try await harness.service().status().state == .invalid)
        }
    }

    @Test func theGateWantsALoginWithinTheWindow() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            let store = try Store(options: StoreOptions(path: harness.databasePath))
            func gate() async throws -> UserActivationStatus {
                try await PINLoginGate.status(
                    records: store, instanceID: "default", within: 300, now: harness.clock.now())
            }
            await #expect(
                try gate()
                    == .notFinished(
                        reason: "a PIN login is required and this installation has no PIN login user",
                        nextStep: .registerLogin))
            try await harness.registered()
            guard case .notFinished(_, .logIn) = try await gate() else {
                Issue.record("a registered user without a login passed")
                return
            }
            _ = try await harness.service().logIn(pin: harness.pin)
            await #expect(try gate() == .finished)
            harness.clock.advance(seconds: 301)
            guard case .notFinished(_, .logIn) = try await gate() else {
                Issue.record("a stale login passed")
                return
            }
        }
    }
}

/// The login error a call failed with.
func loginError(_ body: () async throws -> Void) async -> LoginError? {
    do {
        try await body()
        return nil
    } catch let error as LoginError {
        return error
    } catch {
        Issue.record("expected a LoginError, got \(error)")
        return nil
    }
}
