import Foundation
import WalletModel

/// A status answer and what it tells beside the state.
public struct VerificationReport: Sendable, Equatable {
    public let state: VerificationState
    /// The last presence check failed: the server asks for it again.
    public let presenceCheckFailed: Bool
}

/// Identity verification for one instance, as the contract says: the state computed from
/// the last status, the last-status rule (every call but `status` uses the process id of
/// the last successful status), the activation check after a failure, and the server's
/// error codes turned into states.
public struct VerificationProcess: Sendable {
    let api: IdentityAPI
    let onboarding: OnboardingAPI
    public let powerAuth: PowerAuthClient
    let store: any VerificationRecords

    var records: VerificationStore { VerificationStore(records: store, instanceID: powerAuth.settings.instanceID) }

    // MARK: Status

    /// Asks the server where the verification stands. A failure forgets the last status.
    public func status() async throws -> VerificationState {
        try await report().state
    }

    /// The state, and what the state alone does not say: a presence check that failed (the
    /// server went back from the OTP step to the presence check since the last status).
    public func report() async throws -> VerificationReport {
        do {
            let previous = try? await records.load().lastStatus
            let answer = try await guarded(needs: nil) { try await api.call("/api/identity/status", [:], .token) }
            let last = try Self.lastStatus(answer)
            try await records.saveStatus(last)
            let presenceCheckFailed =
                [.otpVerification, .presenceCheck].contains(previous?.phase) && previous?.status != .notInitialized
                && last.phase == .presenceCheck && last.status == .notInitialized
            return VerificationReport(state: try await state(for: last), presenceCheckFailed: presenceCheckFailed)
        } catch {
            try? await records.forgetStatus()
            throw error
        }
    }

    func state(for last: VerificationStore.LastStatus) async throws -> VerificationState {
        switch VerificationStateTable.cell(phase: last.phase, status: last.status) {
        case .state(let state): return state
        case .empty: throw VerificationError.unexpectedState(phase: last.phase, status: last.status)
        case .documents:
            let documents = try await serverDocuments(processID: last.processID)
            return await VerificationStateTable.documentsState(documents, chosenTypes: try records.load().chosenTypes)
        }
    }

    /// The documents the server holds for this verification; nil once it succeeded (the
    /// server lists a process's documents only while its verification is in progress).
    public func documents() async throws -> [ServerDocument]? {
        let last = try await requireLastStatus()
        do {
            return try await serverDocuments(processID: last.processID)
        } catch let error as VerificationError where error.code == .verificationEndstate {
            // The server's "ONBOARDING_FAILED", also its answer once the process finished.
            if case .success? = try? await status() { return nil }
            throw error
        }
    }

    private func serverDocuments(processID: String) async throws -> [ServerDocument] {
        let answer = try await guarded(needs: nil) {
            try await api.call(
                "/api/identity/document/status", ["processId": processID], .token, timeout: .documentStatus)
        }
        return try Self.documents(answer)
    }

    // MARK: Consent

    public func consentText() async throws -> String {
        let last = try await requireLastStatus()
        let answer = try await guarded(needs: .intro, action: "consent to") {
            try await api.call(
                "/api/identity/consent/text", ["processId": last.processID, "consentType": "GDPR"], .token)
        }
        guard let text = answer["consentText"] as? String else {
            throw OnboardingError(.networkBadServerResponse, httpStatus: 200, detail: "consentText missing")
        }
        return text
    }

    /// Approves the consent and starts the verification: next, the document types.
    public func approveConsent() async throws -> VerificationState {
        let last = try await requireLastStatus()
        try await guarded(needs: .intro, action: "consent to") {
            _ = try await api.call(
                "/api/identity/consent/approve",
                ["processId": last.processID, "approved": true, "consentType": "GDPR"], .signature)
            _ = try await api.call("/api/identity/init", ["processId": last.processID], .signature)
        }
        try await records.saveStatus(.init(processID: last.processID, phase: .documentUpload, status: .inProgress))
        return .documentsToScanSelect
    }

    // MARK: Documents

    /// Keeps the document types the user will scan (local), then initializes the scanning
    /// SDK's session on the server.
    public func selectDocumentTypes(_ types: [DocumentType]) async throws -> VerificationState {
        guard !types.isEmpty, types.allSatisfy(DocumentType.scannable.contains), Set(types).count == types.count else {
            throw VerificationError.invalidDocument(
                "choose distinct document types among \(DocumentType.scannable.map(\.rawValue).joined(separator: ", "))"
            )
        }
        // A server may take the SDK's init in any state; the choice fits only once the
        // consent is approved (or to choose again while scanning).
        let current = try await status()
        guard Step.scanning.accepts(current) else {
            throw VerificationError.wrongStep(current, needs: "documentsToScanSelect", action: "choose")
        }
        let last = try await requireLastStatus()
        let challenge = UUID().uuidString
        _ = try await guarded(needs: .scanning, action: "choose") {
            try await api.call(
                "/api/identity/document/init-sdk",
                ["processId": last.processID, "attributes": ["sdk-init-token": challenge]], .signedEncrypted)
        }
        try await records.saveChosenTypes(types)
        // What the server already holds counts: an accepted document is not asked for again.
        return .scanDocument(
            ScanProcess(types: types, serverDocuments: try await serverDocuments(processID: last.processID)))
    }

    /// Uploads document images, checked whole (against what the server already has) before
    /// anything is sent. Without chosen types, the files' types become the choice.
    public func submitDocuments(_ files: [DocumentImageFile], reupload: Bool) async throws -> VerificationState {
        // The step first: in another state, what the files lack (--reupload) is not the point.
        let current = try await status()
        guard Step.scanning.accepts(current) else {
            throw VerificationError.wrongStep(current, needs: Step.scanning.name, action: "submit")
        }
        let last = try await requireLastStatus()
        let chosen =
            try await records.load().chosenTypes
            ?? DocumentType.scannable.filter { type in files.contains { $0.type == type } }
        if let other = files.first(where: { !chosen.contains($0.type) }) {
            throw VerificationError.invalidDocument(
                "\(other.type) is not among the chosen document types (\(chosen.map(\.rawValue).joined(separator: ", "))); choose again with `documents select`"
            )
        }
        let process = ScanProcess(types: chosen, serverDocuments: try await serverDocuments(processID: last.processID))
        let planned = try DocumentSubmission.plan(files, reupload: reupload, process: process)
        let object = DocumentSubmission.requestObject(
            processID: last.processID, documents: planned, archive: try DocumentSubmission.archive(planned))
        _ = try await guarded(needs: .scanning, action: "submit") {
            try await api.call("/api/identity/document/submit", object, .tokenEncrypted, timeout: .documentSubmit)
        }
        try await records.saveChosenTypes(chosen)
        return .processing(.documentUpload)
    }

    // MARK: Presence check

    /// Starts a presence check: the session attributes for the presence-check SDK.
    public func presenceCheckInit() async throws -> [String: String] {
        let last = try await requireLastStatus()
        let answer = try await guarded(needs: .presenceCheck, action: "check") {
            try await api.call("/api/identity/presence-check/init", ["processId": last.processID], .signedEncrypted)
        }
        return (answer["sessionAttributes"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
    }

    public func presenceCheckSubmit() async throws -> VerificationState {
        let last = try await requireLastStatus()
        _ = try await guarded(needs: .presenceCheck, action: "check") {
            try await api.call("/api/identity/presence-check/submit", ["processId": last.processID], .signature)
        }
        return .processing(.verifyingPresence)
    }

    // MARK: OTP

    /// Checks the OTP: processing when verified; a wrong one with attempts left throws
    /// `verification.wrongOTP`, an exhausted or expired one `verification.otpFailed`.
    public func verifyOTP(_ code: String) async throws -> VerificationState {
        try await requireOTPStep()
        let last = try await requireLastStatus()
        let answer = try await guarded(needs: .otp, action: "verify") {
            try await api.call(
                "/api/identity/otp/verify", ["processId": last.processID, "otpCode": code], .encryptedOnly)
        }
        guard let verified = answer["verified"] as? Bool else {
            throw OnboardingError(.networkBadServerResponse, httpStatus: 200, detail: "verified missing")
        }
        if verified { return .processing(.other) }
        let remaining = answer["remainingAttempts"] as? Int ?? 0
        if remaining > 0, answer["expired"] as? Bool != true { throw VerificationError.wrongOTP(remaining: remaining) }
        throw VerificationError.otpFailed
    }

    public func resendOTP() async throws {
        let last = try await requireLastStatus()
        do {
            _ = try await guarded(needs: .otp, action: "resend") {
                try await api.call("/api/identity/otp/resend", ["processId": last.processID], .signature)
            }
        } catch let error as OnboardingError where error.serverCode == "ONBOARDING_OTP_FAILED" {
            throw VerificationError.tooEarly
        }
    }

    /// The OTP from a demo server's `otp/detail` endpoint.
    public func demoOTP() async throws -> String {
        try await requireOTPStep()
        let last = try await requireLastStatus()
        let answer = try await onboarding.otpDetail(processID: last.processID, type: "USER_VERIFICATION")
        guard let code = answer["otpCode"] as? String, !code.isEmpty else {
            throw OnboardingError(.networkBadServerResponse, httpStatus: 200, detail: "otpCode missing")
        }
        return code
    }

    // MARK: Restart and cancel

    /// Ends this verification on the server; it can start again from the intro.
    public func restart() async throws -> VerificationState {
        switch try await status() {
        case .success: throw VerificationError.succeeded(nothingTo: "restart")
        case .endstate(let reason): throw VerificationError.restartInEndstate(reason)
        default: break
        }
        let last = try await requireLastStatus()
        _ = try await guarded(needs: nil) {
            try await api.call("/api/identity/cleanup", ["processId": last.processID], .signature)
        }
        try await records.saveStatus(.init(processID: last.processID, phase: nil, status: .notInitialized))
        return .intro
    }

    /// Cancels the whole onboarding process; the device activation is then forgotten here,
    /// as the server removes it.
    /// A verification that succeeded is not cancelled unless `force`: cancelling discards the
    /// verified device activation.
    public func cancelWholeProcess(force: Bool = false) async throws {
        // Forced or not, no device activation here is one answer: onboard (not "run status").
        _ = try await powerAuth.requireActivation()
        do {
            if !force, case .success = try await status() { throw VerificationError.cancelVerified }
            let last = try await requireLastStatus()
            try await onboarding.cleanup(processID: last.processID)
        } catch let error as VerificationError where error.code == .verificationActivationNotActive {
            // The server removed the device activation already (the process ended there):
            // nothing is left to cancel on it, so it is forgotten here too.
        }
        _ = try await powerAuth.forget()
        try await records.delete()
    }

    // MARK: Rules

    /// Before an OTP call: the server's state, which must be the OTP step. Before it, no OTP
    /// exists, and the server's answer ("failed") would not say why.
    func requireOTPStep(action: String = "verify") async throws {
        let current = try await status()
        guard Step.otp.accepts(current) else {
            throw VerificationError.wrongStep(current, needs: Step.otp.name, action: action)
        }
    }

    func requireLastStatus() async throws -> VerificationStore.LastStatus {
        guard let last = try await records.load().lastStatus else { throw VerificationError.missingStatus }
        return last
    }

    /// Runs a call and turns its failure into what the contract says: a device activation
    /// that is no longer active, a server code that names a state, or, for an event the
    /// server refuses in another state, the state it is in. After a verification succeeded the
    /// server refuses every call but status with the end state's code: that is `action`'s
    /// "nothing to".
    func guarded<T>(needs step: Step?, action: String? = nil, _ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch {
            guard !(error is VerificationError), !Self.isOffline(error) else { throw error }
            if let state = try? await powerAuth.status().state, state != "ACTIVE" {
                throw VerificationError.activationNotActive
            }
            guard let error = error as? OnboardingError else { throw error }
            if let action, error.serverCode == "ONBOARDING_FAILED", case .success? = try? await status() {
                throw VerificationError.succeeded(nothingTo: action)
            }
            if let mapped = VerificationError.forServerCode(error.serverCode, message: error.serverMessage) {
                throw mapped
            }
            if let step, error.serverCode == "ERROR_GENERIC", let current = try? await status(), !step.accepts(current)
            {
                throw VerificationError.wrongStep(current, needs: step.name, action: action ?? "do")
            }
            throw error
        }
    }

    static func isOffline(_ error: Error) -> Bool {
        if let error = error as? OnboardingError { return error.isOffline }
        if case PowerAuthClientError.unreachable = error { return true }
        return false
    }

    /// The state an event needs.
    struct Step: Sendable {
        let name: String
        let accepts: @Sendable (VerificationState) -> Bool

        static let intro = Step(name: "intro") {
            if case .intro = $0 { true } else if case .consent = $0 { true } else { false }
        }
        static let scanning = Step(name: "scanDocument") {
            if case .scanDocument = $0 { true } else if case .documentsToScanSelect = $0 { true } else { false }
        }
        static let presenceCheck = Step(name: "presenceCheck") { $0 == .presenceCheck }
        static let otp = Step(name: "otp") { if case .otp = $0 { true } else { false } }
    }
}
