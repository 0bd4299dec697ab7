/// One activation attempt as auditors see it: the "started" and "finished" rows merged.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var requestID: String
    public var startedAt: Timestamp
    public var finishedAt: Timestamp?
    public var serialNumber: String
    public var passTypeIdentifier: String?
    public var tokenUniqueReference: String?
    public var device: String?
    /// Nil while the attempt is still open (in flight, or its process was killed).
    public var outcome: String?
    public var errorCode: String?
    public var httpStatus: Int?
    public var cardLast4Digits: String?
    public var comment: String?
    public var latencyMilliseconds: Int?
    public var deeplinkHash: String

    public init(
        id: Int64, requestID: String, startedAt: Timestamp, finishedAt: Timestamp?, serialNumber: String,
        passTypeIdentifier: String?,
        tokenUniqueReference: String?, device: String?, outcome: String?, errorCode: String?, httpStatus: Int?,
        cardLast4Digits: String?,
        comment: String?, latencyMilliseconds: Int?, deeplinkHash: String
    ) {
        self.id = id
        self.requestID = requestID
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.serialNumber = serialNumber
        self.passTypeIdentifier = passTypeIdentifier
        self.tokenUniqueReference = tokenUniqueReference
        self.device = device
        self.outcome = outcome
        self.errorCode = errorCode
        self.httpStatus = httpStatus
        self.cardLast4Digits = cardLast4Digits
        self.comment = comment
        self.latencyMilliseconds = latencyMilliseconds
        self.deeplinkHash = deeplinkHash
    }
}

/// Which audit entries to list.
public struct AuditFilter: Sendable, Equatable {
    public var serialNumber: String?
    public var outcome: String?
    public var since: Timestamp?
    public var until: Timestamp?
    public var id: Int64?
    /// Only attempts with no "finished" entry: in flight now, or left by a process that died.
    public var unfinished: Bool
    /// Only attempts older than this id (a page that ends where the next one starts).
    public var before: Int64?
    /// Only the newest this many of the attempts matching, still oldest first: the store
    /// reads them from the end of the audit, however long it is.
    public var newest: Int?

    public init(
        serialNumber: String? = nil, outcome: String? = nil, since: Timestamp? = nil, until: Timestamp? = nil,
        id: Int64? = nil, unfinished: Bool = false, before: Int64? = nil, newest: Int? = nil
    ) {
        self.serialNumber = serialNumber
        self.outcome = outcome
        self.since = since
        self.until = until
        self.id = id
        self.unfinished = unfinished
        self.before = before
        self.newest = newest
    }
}
