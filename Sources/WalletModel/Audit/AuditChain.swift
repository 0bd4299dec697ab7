/// Walks the audit's hash chain row by row, in order, on either database.
public struct ChainCheck {
    private var previous = AuditRow.genesisHash

    public init() {}

    /// - Parameter content: the row's content, nil when its event or time cannot be read.
    /// - Returns: why this row breaks the chain, or nil.
    public mutating func check(
        seq: Int64, entryID: Int64?, event: String?, previousHash: String, hash: String, content: AuditRow?
    ) -> BrokenRow? {
        func broken(_ reason: String) -> BrokenRow {
            BrokenRow(seq: seq, entryID: entryID, event: event, reason: reason)
        }
        guard previousHash == previous else {
            return broken("its previous-hash link does not match the row before it (a row was removed or reordered)")
        }
        guard let content else {
            return broken("it holds an unreadable event or time")
        }
        guard content.hash(previous: previous) == hash else {
            return broken("its content does not match its hash (the row was changed)")
        }
        previous = hash
        return nil
    }
}

/// Where the audit's hash chain first breaks: the stored row, and the entry it belongs to
/// (the id `audit show` takes) with its event.
public struct BrokenRow: Sendable, Equatable {
    public let seq: Int64
    public let entryID: Int64?
    public let event: String?
    public let reason: String

    public init(seq: Int64, entryID: Int64?, event: String?, reason: String) {
        self.seq = seq
        self.entryID = entryID
        self.event = event
        self.reason = reason
    }
}

/// One audit row as stored: its place in the chain, the links, and its content (nil when
/// its event or time cannot be read).
public struct StoredAuditRow: Sendable, Equatable {
    public var seq: Int64
    /// Nil when the stored value cannot be read (as ``content`` then is).
    public var attemptID: Int64?
    public var event: String?
    public var previousHash: String
    public var hash: String
    public var content: AuditRow?

    public init(seq: Int64, attemptID: Int64?, event: String?, previousHash: String, hash: String, content: AuditRow?) {
        self.seq = seq
        self.attemptID = attemptID
        self.event = event
        self.previousHash = previousHash
        self.hash = hash
        self.content = content
    }
}

extension ChainCheck {
    /// - Returns: why `row` breaks the chain, or nil.
    public mutating func check(_ row: StoredAuditRow) -> BrokenRow? {
        check(
            seq: row.seq, entryID: row.attemptID, event: row.event, previousHash: row.previousHash, hash: row.hash,
            content: row.content)
    }

    /// Checks the chain over the rows `forEach` walks, oldest first.
    /// - Returns: the rows read, and the first broken row (nil when the chain holds).
    public static func verify(
        _ forEach: ((StoredAuditRow) throws -> Void) async throws -> Void
    ) async throws -> (rows: Int, broken: BrokenRow?) {
        var chain = ChainCheck()
        var rows = 0
        var broken: BrokenRow?
        try await forEach { row in
            rows += 1
            if broken == nil { broken = chain.check(row) }
        }
        return (rows, broken)
    }
}
