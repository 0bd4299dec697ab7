/// The running user-activation process, one per instance id (`onboarding_process`): the
/// onboarding core's only persisted process state.
public protocol OnboardingProcessRecords: Sendable {
    func onboardingProcessID(instanceID: String) async throws -> String?

    /// Stores a new process; false when the instance already has one.
    func insertOnboardingProcess(_ process: OnboardingProcessRow) async throws -> Bool

    /// Forgets the instance's process; only if it is still `processID` when that is given (a
    /// concurrent start may have replaced it).
    func deleteOnboardingProcess(instanceID: String, processID: String?) async throws
}

public struct OnboardingProcessRow: Sendable, Equatable {
    public var instanceID: String
    public var processID: String
    /// ISO 8601.
    public var startedAt: String

    public init(instanceID: String, processID: String, startedAt: String) {
        self.instanceID = instanceID
        self.processID = processID
        self.startedAt = startedAt
    }
}
