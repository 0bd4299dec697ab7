import ErrorCodes
import Testing

@testable import OnboardingCore

/// The legal transitions of the login user, as a table: every step from every state.
@Suite struct LoginStepTests {
    static let states: [LoginUserState?] = [nil] + LoginUserState.allCases.map(Optional.some)

    static let allowed: [LoginStep: Set<LoginUserState?>] = [
        .register: [nil, .invalid, .blocked],
        .resendEmail: [.startedRegistration],
        .confirm: [.startedRegistration],
        .setPIN: [.activated],
        .logIn: [.registered],
    ]

    @Test(arguments: LoginStep.allCases)
    func eachStepRunsOnlyFromItsStates(step: LoginStep) {
        for state in Self.states {
            #expect(
                step.isAllowed(from: state) == Self.allowed[step]!.contains(state),
                "\(step) from \(state?.rawValue ?? "no user")")
        }
    }

    @Test(arguments: LoginStep.allCases)
    func aRefusedStepNamesWhatToDoInstead(step: LoginStep) {
        for state in Self.states where !step.isAllowed(from: state) {
            let error = LoginError.wrongState(step, state: state)
            switch (state, step) {
            case (nil, _): #expect(error.code == .loginNoUser && error.nextStep == .registerLogin)
            case (_, .register): #expect(error.code == .loginUserExists && error.nextStep == .deleteLogin)
            default:
                #expect(error.code == .loginWrongState)
                #expect(error.nextStep == LoginStep.nextStep(from: state))
                // The step it names can run from this state (a blocked user is deleted by `register`).
                let named: LoginStep? =
                    switch error.nextStep {
                    case .confirmLogin?: .confirm
                    case .setLoginPIN?: .setPIN
                    case .logIn?: .logIn
                    case .registerLogin?, .deleteLoginAndRegister?: .register
                    default: nil
                    }
                #expect(named?.isAllowed(from: state) == true, "\(step) from \(state?.rawValue ?? "no user")")
            }
        }
    }

    @Test(arguments: [
        (LoginUserState?.none, NextStep.registerLogin), (.invalid, .registerLogin),
        (.startedRegistration, .confirmLogin),
        (.activated, .setLoginPIN), (.registered, .logIn), (.blocked, .deleteLoginAndRegister),
    ])
    func theNextStepFollowsTheState(state: LoginUserState?, next: NextStep) {
        #expect(LoginStep.nextStep(from: state) == next)
    }
}
