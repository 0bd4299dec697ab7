import ErrorCodes
import OnboardingCore

/// The commands behind the next steps the libraries name: the libraries describe the
/// state, the application says what to run (the command line and the service alike).
public enum NextStepText {
    public static func command(_ step: NextStep) -> String {
        switch step {
        case .finishOrCancelOnboarding:
            "finish it with `tokenctl onboarding activate --otp CODE`, or `tokenctl onboarding cancel`"
        case .finishOnboarding: "finish it with `tokenctl onboarding activate --otp CODE`"
        case .startOnboarding: "start one with `tokenctl onboarding start --credentials JSON`"
        case .onboard:
            "run `tokenctl onboarding start --credentials JSON`, then `tokenctl onboarding activate --otp CODE`"
        case .showDevice: "`tokenctl device status` shows it"
        case .activateDevice:
            "activate it first: onboard with `tokenctl onboarding start --credentials JSON`, or use an activation code with `tokenctl device activate`"
        case .removeDevice: "`tokenctl device remove` forgets it"
        case .removeDeviceLocallyAndOnboard:
            "`tokenctl device remove --local`, then onboard again with `tokenctl onboarding start --credentials JSON`"
        case .cancelVerificationAndOnboard:
            "cancel the ended process with `tokenctl verification cancel` (or forget it here with `tokenctl device remove --local`), then onboard again with `tokenctl onboarding start --credentials JSON`"
        case .createToken: "run `tokenctl device token` first"
        case .finishVerification: "finish identity verification (`tokenctl verification run`), then try again"
        case .verificationStatus: "run `tokenctl verification status`"
        case .approveConsent:
            "read the consent with `tokenctl verification consent`, then `tokenctl verification consent --approve`"
        case .selectDocuments:
            "choose the documents with `tokenctl verification documents select TYPE…` (ID_CARD, PASSPORT, DRIVING_LICENSE)"
        case .submitDocuments: "submit the images with `tokenctl verification documents submit --id-card-front F …`"
        case .startPresenceCheck: "start the presence check with `tokenctl verification presence-check start`"
        case .finishPresenceCheck: "when the user has done it, run `tokenctl verification presence-check done`"
        case .verifyVerificationOTP: "enter the OTP with `tokenctl verification otp verify CODE`"
        case .restartVerification: "start again with `tokenctl verification restart`"
        case .registerLogin: "register with `tokenctl login register --identity EMAIL`"
        case .confirmLogin: "open the link in the confirmation e-mail, then run `tokenctl login confirm`"
        case .setLoginPIN: "set the PIN with `tokenctl login set-pin`"
        case .logIn: "log in with `tokenctl login run`"
        case .deleteLogin: "`tokenctl login delete` forgets it"
        case .deleteLoginAndRegister: "run `tokenctl login delete`, then `tokenctl login register --identity EMAIL`"
        }
    }

    /// The error's message with the command to run next, when it names a step.
    public static func message(_ error: any CodedError) -> String {
        guard let step = (error as? any GuidedError)?.nextStep else { return error.message }
        return "\(error.message); \(command(step))"
    }
}
