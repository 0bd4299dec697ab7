import OnboardingCore

/// What the activation pipeline reads of the configuration.
public struct ActivationSettings: Sendable, Equatable {
    /// Launch URLs configured in MDES (`scheme://host[/path]`) that deeplinks must match.
    public var deeplinkFormats: [DeeplinkFormat]
    public var tmp: TMPSettings
    /// The user-activation gate (`onboarding.require-finished-user-activation`,
    /// `onboarding.require-pin-login-within-seconds`) and the instance it asks about.
    public var onboarding: OnboardingSettings

    public init(deeplinkFormats: [DeeplinkFormat], tmp: TMPSettings, onboarding: OnboardingSettings) {
        self.deeplinkFormats = deeplinkFormats
        self.tmp = tmp
        self.onboarding = onboarding
    }
}
