import ErrorCodes
import OnboardingCore
import TokenActivation

/// The commands behind the next steps the libraries name: the libraries describe the
/// state, the command line says what to run.
enum NextStepText {
    static func command(_ step: NextStep) -> String {
        switch step {
        case .finishOrCancelOnboarding: "finish it with `tokenctl onboarding activate --otp CODE`, or `tokenctl onboarding cancel`"
        case .finishOnboarding: "finish it with `tokenctl onboarding activate --otp CODE`"
        case .startOnboarding: "start one with `tokenctl onboarding start --credentials JSON`"
        case .onboard: "run `tokenctl onboarding start --credentials JSON`, then `tokenctl onboarding activate --otp CODE`"
        case .showDevice: "`tokenctl device status` shows it"
        case .activateDevice: "run `tokenctl device activate` first"
        case .removeDevice: "`tokenctl device remove` forgets it"
        case .removeDeviceLocallyAndOnboard: "`tokenctl device remove --local`, then onboard again"
        case .createToken: "run `tokenctl device token` first"
        case .finishVerification: "finish identity verification, then try again"
        case .registerLogin: "register with `tokenctl login register --identity EMAIL`"
        case .confirmLogin: "open the link in the confirmation e-mail, then run `tokenctl login confirm`"
        case .setLoginPIN: "set the PIN with `tokenctl login set-pin`"
        case .logIn: "log in with `tokenctl login run`"
        case .deleteLogin: "`tokenctl login delete` forgets it"
        case .deleteLoginAndRegister: "run `tokenctl login delete`, then `tokenctl login register --identity EMAIL`"
        }
    }

    /// The error's message with the command to run next, when it names a step.
    static func message(_ error: any CodedError) -> String {
        guard let step = (error as? any GuidedError)?.nextStep else { return error.message }
        return "\(error.message); \(command(step))"
    }
}
