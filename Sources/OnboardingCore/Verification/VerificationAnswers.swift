/// Reading the identity verification answers: fields the contract requires are checked,
/// absent optional ones are nil (the server leaves nulls out).
extension VerificationProcess {
    static func lastStatus(_ answer: [String: Any]) throws -> VerificationStore.LastStatus {
        guard let processID = answer["processId"] as? String, !processID.isEmpty else {
            throw badAnswer("processId missing")
        }
        guard let status = (answer["identityVerificationStatus"] as? String).flatMap(VerificationStatus.init(rawValue:))
        else {
            throw badAnswer("identityVerificationStatus missing or unknown")
        }
        var phase: VerificationPhase?
        if let text = answer["identityVerificationPhase"] as? String {
            guard let known = VerificationPhase(rawValue: text) else {
                throw badAnswer("unknown identityVerificationPhase \(text)")
            }
            phase = known
        }
        return .init(processID: processID, phase: phase, status: status)
    }

    static func documents(_ answer: [String: Any]) throws -> [ServerDocument] {
        guard let items = answer["documents"] as? [[String: Any]] else { throw badAnswer("documents missing") }
        return try items.map { item in
            guard let id = item["id"] as? String, let type = item["type"] as? String,
                let status = item["status"] as? String
            else {
                throw badAnswer("a document lacks id, type or status")
            }
            return ServerDocument(
                filename: item["filename"] as? String, id: id, type: DocumentType(rawValue: type),
                side: (item["side"] as? String).flatMap(DocumentSide.init(rawValue:)),
                status: DocumentStatus(rawValue: status),
                errors: item["errors"] as? [String] ?? []
            )
        }
    }

    private static func badAnswer(_ detail: String) -> OnboardingError {
        OnboardingError(.networkBadServerResponse, httpStatus: 200, detail: detail)
    }
}
