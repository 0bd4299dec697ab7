import Foundation
import WalletModel

/// The running process id, one per instance id: the onboarding core's only persisted
/// process state.
struct OnboardingProcessStore {
    let records: any OnboardingProcessRecords

    func processID(_ instanceID: String) async throws -> String? {
        try await records.onboardingProcessID(instanceID: instanceID)
    }

    /// Stores a new process id; false when the instance already has one.
    func insert(_ processID: String, instanceID: String) async throws -> Bool {
        try await records.insertOnboardingProcess(
            OnboardingProcessRow(instanceID: instanceID, processID: processID, startedAt: Date().ISO8601Format()))
    }

    /// Forgets the instance's process id, but only if it is still `processID` (a
    /// concurrent start may have replaced it).
    func clear(_ instanceID: String, processID: String? = nil) async throws {
        try await records.deleteOnboardingProcess(instanceID: instanceID, processID: processID)
    }
}
