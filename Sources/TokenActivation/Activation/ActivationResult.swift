/// What one `activate` did, for output and exit codes.
public struct ActivationResult: Sendable, Equatable {
    public var outcome: Outcome
    public var serialNumber: String?
    /// The device account identifier sent (or that would be sent) as tokenUniqueReference.
    public var tokenUniqueReference: String?
    public var cardLast4Digits: String?
    public var comment: String?
    public var httpStatus: Int?
    public var requestID: String?
    public var auditID: Int64?
    public var error: ActivationError?
    /// Things the user should know that did not stop the activation.
    public var warnings: [String] = []
    /// Set by `--dry-run`: where the request would go. Nothing was sent or written.
    public var wouldSendTo: String?
    /// A blank batch line: nothing to print or count.
    public internal(set) var isSkipped = false

    /// An attempt that stopped before the pipeline ran (for example on configuration).
    public static var notRun: ActivationResult { ActivationResult(outcome: .error) }

    init(outcome: Outcome, error: ActivationError? = nil) {
        self.outcome = outcome
        self.error = error
    }

    /// The documented JSON object; identifiers masked unless `reveal`.
    public func json(exitCode: Int32, reveal: Bool) -> JSONObject {
        var object = JSONObject([
            "outcome": .string(outcome.rawValue), "exitCode": .int(Int(exitCode)),
            "serialNumber": .optional(serialNumber.map { Mask.identifier($0, reveal: reveal) }),
            "tokenUniqueReference": .optional(tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) }),
            "cardLast4Digits": .optional(cardLast4Digits), "comment": .optional(comment),
            "httpStatus": httpStatus.map { .int($0) } ?? .null, "requestId": .optional(requestID),
            "auditId": auditID.map { .int(Int($0)) } ?? .null,
            "error": error.map { .object(JSONObject(["code": .string($0.code), "message": .string($0.message)])) } ?? .null,
        ])
        if let wouldSendTo {
            object.append("dryRun", .object(JSONObject(["url": .string(wouldSendTo)])))
        }
        return object
    }
}
