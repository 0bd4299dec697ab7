import Foundation
import WalletModel

/// `onboarding.require-pin-login-within-seconds`: token activation needs a successful PIN
/// login (accepted by the relying party) this recent. Answered from the database alone.
public enum PINLoginGate {
    public static func status(
        records: any LoginUserRecords, instanceID: String, within seconds: Int, now: Date
    ) async throws -> UserActivationStatus {
        guard let user = try await LoginStore(records: records).load(instanceID) else {
            return .notFinished(
                reason: "a PIN login is required and this installation has no PIN login user", nextStep: .registerLogin)
        }
        guard user.state == .registered else {
            return .notFinished(
                reason: "a PIN login is required and the login user is \(user.state.rawValue)",
                nextStep: LoginStep.nextStep(from: user.state))
        }
        guard let last = user.lastLoginAt, now.timeIntervalSince(last) <= Double(seconds),
            last <= now.addingTimeInterval(5)
        else {
            return .notFinished(reason: "a PIN login within the last \(seconds) s is required", nextStep: .logIn)
        }
        return .finished
    }
}
