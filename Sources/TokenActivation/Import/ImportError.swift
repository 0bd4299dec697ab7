/// Why an import file was rejected. Nothing from a rejected file is written.
/// Messages give the line number and the reason, never a raw value.
public struct ImportError: CodedError, Equatable, CustomStringConvertible {
    private enum Kind: String, Sendable {
        case unreadable = "import.unreadable"
        case invalidHeader = "import.invalidHeader"
        case invalidRow = "import.invalidRow"
        case conflict = "import.conflict"
    }

    private let kind: Kind
    /// The 1-based line where the offending record starts, when there is one.
    public let line: Int?
    private let reason: String
    public var code: String { kind.rawValue }
    public var message: String {
        let location = line.map { "line \($0): " } ?? ""
        return "import rejected, nothing was written: \(location)\(reason)"
    }
    public var description: String { message }

    private init(_ kind: Kind, line: Int?, _ reason: String) {
        self.kind = kind
        self.line = line
        self.reason = reason
    }

    static func unreadable(_ source: String, _ detail: String) -> Self {
        Self(.unreadable, line: nil, "cannot read \(source): \(detail)")
    }

    static func invalidHeader(line: Int, _ reason: String) -> Self {
        Self(.invalidHeader, line: line, reason)
    }

    static func invalidRow(line: Int, _ reason: String) -> Self {
        Self(.invalidRow, line: line, reason)
    }

    static func conflict(line: Int, _ fields: ValidatedPassFields) -> Self {
        let device = fields.device.map { "device \"\($0)\"" } ?? "no device label"
        return Self(.conflict, line: line, "serial \(Mask.identifier(fields.serialNumber)) with \(device) is already bound to another device account id (earlier in this file or in the wallet)")
    }
}
