import ErrorCodes
import TextFormats
import WalletModel

/// A wallet administration failure. Messages carry identifiers masked only.
public struct WalletError: CodedError, Equatable, CustomStringConvertible {
    public let code: ErrorCode
    public let message: String
    public var description: String { message }

    private init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    static func notFound(_ query: PassQuery) -> Self {
        Self(.walletNotFound, "no pass record matches \(query.description)")
    }

    static func ambiguous(_ query: PassQuery, matches: [PassRecord]) -> Self {
        let labels = matches.map { $0.device.map { "\"\(SafeText.escaped($0))\"" } ?? "(no device label)" }.joined(
            separator: ", ")
        return Self(
            .walletAmbiguous,
            "\(matches.count) pass records match \(query.description) (devices: \(labels)); name one with --device or --pass-type-id"
        )
    }

    static func duplicate(_ record: PassRecord) -> Self {
        Self(
            .walletDuplicate,
            "a pass record with serial \(Mask.identifier(record.serialNumber)) and device account id \(Mask.identifier(record.deviceAccountIdentifier)) already exists"
        )
    }

    static func conflict(_ record: PassRecord) -> Self {
        let device = record.device.map { "device \"\(SafeText.escaped($0))\"" } ?? "no device label"
        return Self(
            .walletConflict,
            "serial \(SafeText.escaped(Mask.identifier(record.serialNumber))) with \(device) already belongs to another device account id; remove it first or give another --device"
        )
    }
}
