import ErrorCodes

/// Why a deeplink was rejected. Messages name the rule that failed and never repeat the
/// deeplink: it arrives from anyone who can open a URL on the machine.
public struct DeeplinkError: CodedError, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        case tooLong, invalidCharacter, fragment, malformed, formatMismatch, invalidPercentEncoding
        case duplicateParameter, missingSerialNumber, emptySerialNumber, invalidUTF8, controlCharacter
        case serialTooLong, invalidPassType, invalidAction
    }

    public let reason: Reason
    public let message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `deeplink.<reason>`.
    public var code: ErrorCode {
        switch reason {
        case .tooLong: .deeplinkTooLong
        case .invalidCharacter: .deeplinkInvalidCharacter
        case .fragment: .deeplinkFragment
        case .malformed: .deeplinkMalformed
        case .formatMismatch: .deeplinkFormatMismatch
        case .invalidPercentEncoding: .deeplinkInvalidPercentEncoding
        case .duplicateParameter: .deeplinkDuplicateParameter
        case .missingSerialNumber: .deeplinkMissingSerialNumber
        case .emptySerialNumber: .deeplinkEmptySerialNumber
        case .invalidUTF8: .deeplinkInvalidUTF8
        case .controlCharacter: .deeplinkControlCharacter
        case .serialTooLong: .deeplinkSerialTooLong
        case .invalidPassType: .deeplinkInvalidPassType
        case .invalidAction: .deeplinkInvalidAction
        }
    }
    public var description: String { message }
}
