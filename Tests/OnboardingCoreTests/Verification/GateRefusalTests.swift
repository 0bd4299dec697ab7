import Testing

@testable import OnboardingCore

/// The gate's refusal while a verification runs names the way on from the verification's
/// state, the step its own commands name.
@Suite struct GateRefusalTests {
    @Test(arguments: [
        (
            VerificationState.endstate(.rejected),
            "identity verification was rejected, which ends the onboarding process",
            NextStep.cancelVerificationAndOnboard
        ),
        (
            .endstate(.limitReached), "identity verification ended without success (limitReached)",
            .cancelVerificationAndOnboard
        ),
        (.failed, "identity verification failed", .restartVerification),
        (.intro, "identity verification has not ended (state intro)", .finishVerification),
        (.otp(remainingAttempts: 3), "identity verification has not ended (state otp)", .finishVerification),
        (.processing(.documentUpload), "identity verification has not ended (state processing)", .finishVerification),
    ])
    func theStateNamesTheStep(state: VerificationState, reason: String, step: NextStep) {
        #expect(OnboardingUserCheck.refusal(verification: state) == .notFinished(reason: reason, nextStep: step))
    }
}
