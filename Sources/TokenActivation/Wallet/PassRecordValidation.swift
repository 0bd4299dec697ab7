import ErrorCodes
import TextFormats
import WalletModel

/// The limits of pass record values, shared by `wallet add` and `wallet import`.
enum PassRecordValidation {
    static let maxSerialBytes = 128
    static let maxDeviceAccountIdentifierLength = 64
    static let maxPassTypeBytes = 255

    static func validate(_ fields: PassRecordFields) throws(PassRecordError) -> ValidatedPassFields {
        guard let serial = fields.serialNumber, !serial.isEmpty else { throw .missing(.serialNumber) }
        guard let accountID = fields.deviceAccountIdentifier, !accountID.isEmpty else {
            throw .missing(.deviceAccountIdentifier)
        }
        try checkText(serial, .serialNumber, maxBytes: maxSerialBytes)
        guard accountID.utf8.count <= maxDeviceAccountIdentifierLength,
            accountID.utf8.allSatisfy({ isASCIIAlphanumeric($0) })
        else {
            throw .invalid(
                .deviceAccountIdentifier,
                "must be 1 to \(maxDeviceAccountIdentifierLength) letters or digits (A-Z, a-z, 0-9)")
        }
        let passType = fields.passTypeIdentifier ?? PassRecord.defaultPassType
        try checkText(passType, .passTypeIdentifier, maxBytes: maxPassTypeBytes)
        var state: PassState?
        if let name = fields.state {
            guard let parsed = PassState(rawValue: name) else {
                throw .invalid(.state, "must be one of \(PassState.names)")
            }
            state = parsed
        }
        if let device = fields.device {
            guard SafeText.isLabel(device) else {
                throw .invalid(.device, "must be \(SafeText.labelRule)")
            }
        }
        if let suffix = fields.cardSuffix {
            guard (4...5).contains(suffix.utf8.count), suffix.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw .invalid(.cardSuffix, "must be 4 or 5 digits")
            }
        }
        return ValidatedPassFields(
            serialNumber: serial, deviceAccountIdentifier: accountID, passTypeIdentifier: passType,
            state: state, device: fields.device, cardSuffix: fields.cardSuffix
        )
    }

    private static func checkText(_ value: String, _ name: PassRecordFields.Name, maxBytes: Int) throws(PassRecordError)
    {
        guard !value.isEmpty, value.utf8.count <= maxBytes else {
            throw .invalid(name, "must be 1 to \(maxBytes) bytes")
        }
        guard !SafeText.containsUnsafe(value) else {
            throw .invalid(name, "must not contain control or bidirectional formatting characters")
        }
    }

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}

/// A pass record value that is missing or outside its limits. The message names the
/// field, never its value.
public struct PassRecordError: CodedError, Equatable {
    public let field: PassRecordFields.Name
    public let reason: String
    public var code: ErrorCode { .walletInvalidValue }
    public var message: String { "\(field.rawValue) \(reason)" }

    static func missing(_ field: PassRecordFields.Name) -> Self { Self(field: field, reason: "is required") }
    static func invalid(_ field: PassRecordFields.Name, _ reason: String) -> Self { Self(field: field, reason: reason) }
}
