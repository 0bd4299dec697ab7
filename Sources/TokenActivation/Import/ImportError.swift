import ErrorCodes
import TextFormats
import WalletModel

/// Why an import file was rejected. Nothing from a rejected file is written.
/// Messages give the line number and the reason, never a raw value.
public struct ImportError: CodedError, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    /// The 1-based line where the offending record starts, when there is one.
    public let line: Int?
    private let reason: String
    /// The reason alone, without the import's wording (a batch reads the same input).
    var detail: String { reason }
    public var message: String {
        let location = line.map { "line \($0): " } ?? ""
        return "import rejected, nothing was written: \(location)\(reason)"
    }
    public var description: String { message }

    private init(_ code: ErrorCode, line: Int?, _ reason: String) {
        self.code = code
        self.line = line
        self.reason = reason
    }

    static func unreadable(_ source: String, _ detail: String) -> Self {
        Self(.importUnreadable, line: nil, "cannot read \(source): \(detail)")
    }

    static func invalidHeader(line: Int, _ reason: String) -> Self {
        Self(.importInvalidHeader, line: line, reason)
    }

    static func invalidRow(line: Int, _ reason: String) -> Self {
        Self(.importInvalidRow, line: line, reason)
    }

    static func conflict(line: Int, _ fields: ValidatedPassFields) -> Self {
        let device = fields.device.map { "device \"\($0)\"" } ?? "no device label"
        return Self(
            .importConflict, line: line,
            "serial \(Mask.identifier(fields.serialNumber)) with \(device) is already bound to another device account id (earlier in this file or in the wallet)"
        )
    }
}
