/// The process exit statuses of DESIGN §2; scripts depend on them.
public enum ExitStatus: Int32, CaseIterable, Sendable, Comparable {
    /// APPROVED, already activated, or a command that did what it was asked.
    case success = 0
    /// DECLINED; a wrong OTP with attempts left; a consent not approved.
    case declined = 2
    /// FAILED; an onboarding process that failed.
    case failed = 3
    /// Bad flags, arguments or option values.
    case usage = 64
    /// Rejected input: a deeplink, an import file, a colliding record, a broken audit chain.
    case rejectedInput = 65
    /// No activatable or matching record.
    case notFound = 66
    /// A server unreachable, failing or not answering (the outcome may be UNKNOWN).
    case unavailable = 69
    /// The database cannot be used.
    case databaseError = 74
    /// Try again later: in progress elsewhere, or the database stayed locked.
    case temporary = 75
    /// A server answered outside its contract.
    case protocolError = 76
    /// The user activation (or the device activation behind it) is missing or refused.
    case userActivationRequired = 77
    /// The configuration, or a file it names, is unusable.
    case configuration = 78

    /// A batch exits with the most severe status of its lines, most severe first (DESIGN §2):
    /// 78 > 74 > 69 > 76 > 75 > 77 > 66 > 65 > 3 > 2 > 0. Usage errors stop a command before
    /// any line runs, so 64 is never a line's status; it ranks above all.
    public static var severityOrder: [ExitStatus] { allCases.sorted() }

    /// The rank in ``severityOrder``: 0 is the most severe.
    public var severityRank: Int {
        switch self {
        case .usage: 0
        case .configuration: 1
        case .databaseError: 2
        case .unavailable: 3
        case .protocolError: 4
        case .temporary: 5
        case .userActivationRequired: 6
        case .notFound: 7
        case .rejectedInput: 8
        case .failed: 9
        case .declined: 10
        case .success: 11
        }
    }

    /// The more severe of two statuses.
    public static func mostSevere(_ a: ExitStatus, _ b: ExitStatus) -> ExitStatus {
        a.severityRank <= b.severityRank ? a : b
    }

    /// Orders by severity, most severe first.
    public static func < (lhs: ExitStatus, rhs: ExitStatus) -> Bool { lhs.severityRank < rhs.severityRank }
}

extension ExitStatus {
    /// One line for people: when a command exits with this status.
    public var meaning: String {
        switch self {
        case .success: "success: APPROVED, already activated, or done"
        case .declined: "DECLINED; a wrong OTP or PIN with attempts left; a consent not approved"
        case .failed:
            "FAILED; an onboarding process or identity verification failed or ended; a login blocked or refused"
        case .usage: "usage error: bad flags, arguments or option values"
        case .rejectedInput: "rejected input: a deeplink, import file, colliding record, broken audit chain"
        case .notFound: "no activatable or matching record"
        case .unavailable: "a server unreachable, failing (5xx) or silent; the outcome may be UNKNOWN"
        case .databaseError: "database I/O error"
        case .temporary: "temporary: in progress elsewhere, or the database stayed locked"
        case .protocolError: "a server answered outside its contract"
        case .userActivationRequired: "user activation or a PIN login required, or the device activation refused"
        case .configuration: "configuration error"
        }
    }
}
