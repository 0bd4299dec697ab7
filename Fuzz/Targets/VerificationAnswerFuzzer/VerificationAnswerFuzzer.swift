@testable import OnboardingCore

// libFuzzer entry point for the identity verification answers (`make fuzz`): the envelope,
// the status and document-status objects, then the state they lead to.
// Properties: reading never crashes; it answers a state or a coded error (a malformed answer,
// or a (phase, status) pair no state fits), never anything else.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVerificationAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let object = try OnboardingEnvelope.decode(httpStatus: 200, body: body)
        if let last = try? VerificationProcess.lastStatus(object) {
            switch VerificationStateTable.cell(phase: last.phase, status: last.status) {
            case .state(let state): precondition(!state.name.isEmpty)
            case .empty:
                precondition(
                    VerificationError.unexpectedState(phase: last.phase, status: last.status).code
                        == .verificationUnexpectedState)
            case .documents: break
            }
        }
        let documents = try VerificationProcess.documents(object)
        for types in [nil, [DocumentType.idCard, .passport]] {
            let state = VerificationStateTable.documentsState(documents, chosenTypes: types)
            if case .scanDocument(let process) = state, let next = process.nextDocumentToScan {
                precondition(next.uploadState != .accepted)
            }
        }
    } catch let error as OnboardingError {
        precondition(
            ["onboarding.protocol", "onboarding.serverError"].contains(error.code.rawValue),
            "undocumented code \(error.code.rawValue)")
    } catch {
        preconditionFailure("an error outside the contract: \(error)")
    }
    return 0
}
