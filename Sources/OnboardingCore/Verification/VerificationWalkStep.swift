/// What a walk through identity verification (`tokenctl verification run`) does next in a
/// state the server reported: the walk's decisions, without its prompts, beside the
/// ``NextStep`` the single commands name.
public enum VerificationWalkStep: Sendable, Equatable {
    /// The server is working on `item`: wait, then ask again.
    case wait(VerificationState.ProcessingItem)
    /// Show the consent and ask for its approval.
    case approveConsent
    /// Ask which document types to scan.
    case selectDocuments
    /// Ask for the images of these documents: the rejected ones again first (`reupload`),
    /// else the ones not uploaded yet.
    case submitDocuments([ScanProcess.Document], reupload: Bool)
    /// Every chosen document is accepted and the server still waits for documents: it needs
    /// others beside these. Ask which document types to scan again.
    case chooseOtherDocuments(accepted: [DocumentType])
    /// Start the presence check, wait for the user to do it, then say it is done.
    case presenceCheck
    /// Ask for the OTP.
    case enterOTP
    /// The verification failed, or was rejected: offer to start it again (the server allows
    /// a new verification either way, within the process's limits).
    case offerRestart(rejected: Bool)
    /// Nothing more to do: the user is verified, or the server ended the onboarding process.
    case finished(verified: Bool)

    public init(_ state: VerificationState) {
        switch state {
        case .processing(let item): self = .wait(item)
        case .intro, .consent: self = .approveConsent
        case .documentsToScanSelect: self = .selectDocuments
        case .scanDocument(let scan):
            let todo = scan.documents.filter { $0.uploadState != .accepted }
            let rejected = todo.filter { $0.uploadState == .rejected }
            if todo.isEmpty {
                self = .chooseOtherDocuments(accepted: scan.documents.map(\.type))
            } else {
                self =
                    rejected.isEmpty
                    ? .submitDocuments(todo, reupload: false) : .submitDocuments(rejected, reupload: true)
            }
        case .presenceCheck: self = .presenceCheck
        case .otp: self = .enterOTP
        case .failed: self = .offerRestart(rejected: false)
        case .endstate: self = .finished(verified: false)
        case .success: self = .finished(verified: true)
        }
    }
}
