/// The client state for a (phase, status) pair: the Apple SDK's table, with its empty cells
/// made a coded error instead of a crash.
public enum VerificationStateTable {
    public enum Cell: Sendable, Equatable {
        case state(VerificationState)
        /// Decided by the documents: ask their status, then ``documentsState(_:chosenTypes:)``.
        case documents
        /// A pair a server should not send.
        case empty
    }

    public static func cell(phase: VerificationPhase?, status: VerificationStatus) -> Cell {
        if phase == .documentUpload, status == .inProgress { return .documents }
        return state(phase: phase, status: status).map(Cell.state) ?? .empty
    }

    private static func state(phase: VerificationPhase?, status: VerificationStatus) -> VerificationState? {
        switch (phase, status) {
        case (nil, .notInitialized): .intro
        case (.documentUpload, .verificationPending), (.documentVerification, .inProgress):
            .processing(.documentVerification)
        case (.documentVerification, .accepted): .processing(.documentAccepted)
        case (.documentVerificationFinal, .inProgress), (.documentVerificationFinal, .accepted):
            .processing(.documentsCrossVerification)
        case (.clientEvaluation, .inProgress): .processing(.clientVerification)
        case (.clientEvaluation, .accepted): .processing(.clientAccepted)
        case (.presenceCheck, .notInitialized), (.presenceCheck, .inProgress): .presenceCheck
        case (.presenceCheck, .verificationPending): .processing(.verifyingPresence)
        case (.otpVerification, .verificationPending): .otp(remainingAttempts: nil)
        case (.completed, .accepted): .success
        case (.documentVerification, .rejected), (.documentVerificationFinal, .rejected),
            (.clientEvaluation, .rejected),
            (.presenceCheck, .rejected), (.completed, .rejected):
            .endstate(.rejected)
        case (nil, .failed), (.documentUpload, .failed), (.documentVerification, .failed),
            (.documentVerificationFinal, .failed),
            (.clientEvaluation, .failed), (.presenceCheck, .failed), (.completed, .failed):
            .failed
        default: nil
        }
    }

    /// The state while documents are uploaded, by the rule order: any document rejected,
    /// failed or with errors → scan (again); all accepted (or none) → scan; any still in
    /// progress → processing; otherwise failed. Without a chosen set of types: no documents →
    /// choose the types, else failed.
    public static func documentsState(_ documents: [ServerDocument], chosenTypes: [DocumentType]?) -> VerificationState
    {
        guard let chosenTypes else { return documents.isEmpty ? .documentsToScanSelect : .failed }
        if documents.contains(where: { $0.status == .rejected || $0.status == .failed || !$0.errors.isEmpty }) {
            return .scanDocument(ScanProcess(types: chosenTypes, serverDocuments: documents))
        }
        if documents.allSatisfy({ $0.status == .accepted }) {
            return .scanDocument(ScanProcess(types: chosenTypes, serverDocuments: documents))
        }
        if documents.contains(where: { $0.status.isProcessing }) { return .processing(.documentVerification) }
        return .failed
    }
}
