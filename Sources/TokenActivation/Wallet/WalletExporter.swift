import Foundation
import WalletModel

/// Writes pass records as a backup that `wallet import` reads back: whole values, never
/// masked. CSV has the import header; JSON Lines one object a line.
enum WalletExporter {
    static let header = PassRecordFields.Name.allCases.map(\.rawValue).joined(separator: ",")

    static func csvLine(_ record: PassRecord) -> String {
        let values: [String] = [
            record.serialNumber, record.deviceAccountIdentifier, record.passTypeIdentifier,
            record.state.rawValue, record.device ?? "", record.cardSuffix ?? "",
        ]
        return values.map(CSV.field).joined(separator: ",")
    }
}

/// RFC 4180 output.
public enum CSV {
    private static let quotedBytes: Set<UInt8> = [0x2C, 0x22, 0x0A, 0x0D]

    /// Quotes a value when it holds a comma, a double quote or a line break, doubling each
    /// double quote. Decided on bytes, as the importer reads them: a quote followed by a
    /// combining mark is one `Character` in Swift but still a quote in RFC 4180.
    public static func field(_ value: String) -> String {
        let needsQuotes = value.utf8.contains(where: quotedBytes.contains)
        guard needsQuotes else { return value }
        var bytes: [UInt8] = [0x22]
        bytes.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            if byte == 0x22 { bytes.append(0x22) }
            bytes.append(byte)
        }
        bytes.append(0x22)
        return String(decoding: bytes, as: UTF8.self)
    }
}
