import Testing

@testable import OnboardingCore

/// What `verification run` does next in each state, as a table.
@Suite struct VerificationWalkStepTests {
    static let accepted = ServerDocument(id: "front", type: .idCard, side: .front, status: .accepted)
    static let rejected = ServerDocument(
        id: "back", type: .idCard, side: .back, status: .rejected, errors: ["unreadable"])

    @Test(arguments: [
        (VerificationState.intro, VerificationWalkStep.approveConsent),
        (.consent(text: "I agree"), .approveConsent),
        (.documentsToScanSelect, .selectDocuments),
        (.processing(.documentVerification), .wait(.documentVerification)),
        (.presenceCheck, .presenceCheck),
        (.otp(remainingAttempts: 3), .enterOTP),
        (.failed, .offerRestart(rejected: false)),
        (.endstate(.rejected), .finished(verified: false)),
        (.endstate(.limitReached), .finished(verified: false)),
        (.endstate(.other), .finished(verified: false)),
        (.success, .finished(verified: true)),
    ])
    func eachStateHasItsStep(state: VerificationState, step: VerificationWalkStep) {
        #expect(VerificationWalkStep(state) == step)
    }

    /// Rejected documents are asked for again before new ones; accepted ones never.
    @Test func rejectedDocumentsComeBackFirstAsAReupload() throws {
        let scan = ScanProcess(types: [.idCard, .passport], serverDocuments: [Self.accepted, Self.rejected])
        guard case .submitDocuments(let documents, let reupload) = VerificationWalkStep(.scanDocument(scan)) else {
            Issue.record("expected submitDocuments")
            return
        }
        #expect(documents.map(\.type) == [.idCard])
        #expect(reupload)
    }

    @Test func newDocumentsAreAskedForAndAcceptedOnesAreNot() {
        let scan = ScanProcess(
            types: [.idCard, .passport],
            serverDocuments: [Self.accepted, ServerDocument(id: "b", type: .idCard, side: .back, status: .accepted)])
        #expect(VerificationWalkStep(.scanDocument(scan)) == .submitDocuments([scan.documents[1]], reupload: false))
    }

    /// Every chosen document accepted while the server still waits for documents: it needs
    /// others, so the walk asks for the types again (it used to wait for ever).
    @Test func everyChosenDocumentAcceptedAsksForOthers() {
        let done = ScanProcess(types: [.idCard], serverDocuments: [Self.accepted])
        #expect(VerificationWalkStep(.scanDocument(done)) == .chooseOtherDocuments(accepted: [.idCard]))
    }
}
