import Foundation
import OnboardingCore
import Sandbox
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

/// The demo's PIN login path: with the PIN gate on, a token waits; the user registers,
/// confirms from the e-mail, sets a PIN, mistypes it once, logs in, and the token is
/// activated.
struct DemoLogin {
    let sandbox: TMPSandbox
    var settings: Settings

    static let serial = "SN4000000008"
    static let identity = "alice@example.com"

    /// Runs the path and prints each step; answers how many steps went as expected, of how many.
    func run() async throws -> (passed: Int, steps: Int) {
        var settings = settings
        settings.onboarding.pinLoginWithinSeconds = 300
        settings.login.connection.baseURL = sandbox.baseURL
        settings.login.relyingPartyURL = sandbox.baseURL + "/rp"
        _ = try await Wallet(settings: settings).add(
            PassRecordFields(
                serialNumber: Self.serial, deviceAccountIdentifier: "DAPLPIN7Q2M9K0008888", cardSuffix: "8888"))

        var passed = 0
        func step(_ ok: Bool, _ text: String) {
            if ok { passed += 1 }
            Output.line("\(ok ? "ok  " : "FAIL") \(text)")
        }
        let activator = Activator(settings: settings, environment: [:])
        func activateToken() async -> ActivationResult {
            await activator.activate(deeplink: "mybank://activate?serialNumber=\(Self.serial)")
        }
        let service = settings.loginService(logger: .init(label: "tokenctl.demo"))
        func attempt(_ body: () async throws -> Void) async -> String {
            do {
                try await body()
                return "ok"
            } catch let error as LoginError {
                return error.code.rawValue
            } catch {
                return "\(error)"
            }
        }

        Output.line("\nPIN login (onboarding.require-pin-login-within-seconds 300)")
        let before = await activateToken()
        step(
            before.error?.code == .loginRequired,
            "token before a PIN login: exit \(before.exitStatus.rawValue), \(before.error?.code.rawValue ?? before.outcome.rawValue)"
        )
        let registered = try await service.register(identity: Self.identity, deviceName: "tokenctl demo")
        step(
            registered.state == .startedRegistration,
            "login register \(Self.identity): \(registered.state.rawValue); the platform e-mails a link")
        let early = await attempt { _ = try await service.confirm() }
        step(early == "login.notConfirmed", "login confirm before the link is opened: \(early)")
        sandbox.miracl.confirmEmail(userID: Self.identity)
        Output.line("     the user opens the link in the e-mail")
        let confirmed = try await service.confirm()
        step(
            confirmed.state == .activated,
            "login confirm: \(confirmed.state.rawValue), both client-secret shares fetched")
        let set = try await service.setPIN(Array("2468".utf8))
        step(set.state == .registered, "login set-pin: \(set.state.rawValue); only the PIN-less token is stored")
        let wrong = await attempt { _ = try await service.logIn(pin: Array("1357".utf8)) }
        step(wrong == "login.wrongPIN", "login run with a wrong PIN: \(wrong)")
        let outcome = try await service.logIn(pin: Array("2468".utf8))
        step(
            outcome.identity == Self.identity,
            "login run with the right PIN: the relying party accepted it (\(outcome.requests) requests)")
        let after = await activateToken()
        step(
            after.outcome == .approved,
            "token after the PIN login: exit \(after.exitStatus.rawValue), \(after.outcome.rawValue)")
        return (passed, 8)
    }
}
