/// Where the user is in identity verification: computed from the server's phase and status
/// (and, while documents are uploaded, their statuses) by ``VerificationStateTable``.
public enum VerificationState: Sendable, Equatable {
    case intro
    case consent(text: String)
    case documentsToScanSelect
    case scanDocument(ScanProcess)
    case processing(ProcessingItem)
    case presenceCheck
    /// nil when the server did not say how many attempts are left.
    case otp(remainingAttempts: Int?)
    case failed
    case endstate(EndstateReason)
    case success

    /// What the server is working on while the user waits.
    public enum ProcessingItem: String, Sendable, CaseIterable {
        case documentUpload, documentVerification, documentAccepted, documentsCrossVerification
        case clientVerification, clientAccepted, verifyingPresence, other
    }

    public enum EndstateReason: String, Sendable, CaseIterable {
        case rejected, limitReached, other
    }

    /// The state's name in output: `intro`, `scanDocument`, `processing`, ….
    public var name: String {
        switch self {
        case .intro: "intro"
        case .consent: "consent"
        case .documentsToScanSelect: "documentsToScanSelect"
        case .scanDocument: "scanDocument"
        case .processing: "processing"
        case .presenceCheck: "presenceCheck"
        case .otp: "otp"
        case .failed: "failed"
        case .endstate: "endstate"
        case .success: "success"
        }
    }
}
