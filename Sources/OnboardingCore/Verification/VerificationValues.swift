/// The server's identity verification status.
public enum VerificationStatus: String, Sendable, CaseIterable {
    case notInitialized = "NOT_INITIALIZED"
    case inProgress = "IN_PROGRESS"
    case verificationPending = "VERIFICATION_PENDING"
    case accepted = "ACCEPTED"
    case rejected = "REJECTED"
    case failed = "FAILED"
}

/// The server's identity verification phase; absent before the verification starts.
public enum VerificationPhase: String, Sendable, CaseIterable {
    case documentUpload = "DOCUMENT_UPLOAD"
    case documentVerification = "DOCUMENT_VERIFICATION"
    case documentVerificationFinal = "DOCUMENT_VERIFICATION_FINAL"
    case clientEvaluation = "CLIENT_EVALUATION"
    case presenceCheck = "PRESENCE_CHECK"
    case otpVerification = "OTP_VERIFICATION"
    case completed = "COMPLETED"
}

public enum DocumentSide: String, Sendable, CaseIterable {
    case front = "FRONT"
    case back = "BACK"
}

/// A document type as the server names it; values this client does not know are kept.
public struct DocumentType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let idCard = Self(rawValue: "ID_CARD")
    public static let passport = Self(rawValue: "PASSPORT")
    public static let drivingLicense = Self(rawValue: "DRIVING_LICENSE")
    public static let selfiePhoto = Self(rawValue: "SELFIE_PHOTO")
    public static let selfieVideo = Self(rawValue: "SELFIE_VIDEO")
    public static let unknown = Self(rawValue: "UNKNOWN")

    /// The types a user scans, in the order they are offered.
    public static let scannable: [DocumentType] = [.idCard, .passport, .drivingLicense]

    /// The sides a user scans: an ID card front and back, a passport and a driving licence
    /// the front only; nil for a type that is not scanned.
    public var sides: [DocumentSide]? {
        switch self {
        case .idCard: [.front, .back]
        case .passport, .drivingLicense: [.front]
        default: nil
        }
    }

    /// The stem of the upload's file names (`idcard_front.jpg`).
    var fileStem: String? {
        switch self {
        case .idCard: "idcard"
        case .passport: "passport"
        case .drivingLicense: "driverslicense"
        default: nil
        }
    }

    public var description: String { rawValue }
}

/// A document's status on the server; values this client does not know are kept.
public struct DocumentStatus: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let accepted = Self(rawValue: "ACCEPTED")
    public static let uploadInProgress = Self(rawValue: "UPLOAD_IN_PROGRESS")
    public static let inProgress = Self(rawValue: "IN_PROGRESS")
    public static let verificationPending = Self(rawValue: "VERIFICATION_PENDING")
    public static let verificationInProgress = Self(rawValue: "VERIFICATION_IN_PROGRESS")
    public static let rejected = Self(rawValue: "REJECTED")
    public static let failed = Self(rawValue: "FAILED")
    public static let disposed = Self(rawValue: "DISPOSED")

    /// Still being uploaded or checked.
    var isProcessing: Bool {
        [.uploadInProgress, .inProgress, .verificationPending, .verificationInProgress].contains(self)
    }
}

/// A document as `/api/identity/document/status` lists it.
public struct ServerDocument: Sendable, Equatable {
    public var filename: String?
    public var id: String
    public var type: DocumentType
    public var side: DocumentSide?
    public var status: DocumentStatus
    public var errors: [String]

    public init(
        filename: String? = nil, id: String, type: DocumentType, side: DocumentSide?, status: DocumentStatus,
        errors: [String] = []
    ) {
        self.filename = filename
        self.id = id
        self.type = type
        self.side = side
        self.status = status
        self.errors = errors
    }
}
