import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Human-readable renderings of pass records. Stored text is shown through
/// ``SafeText/escaped(_:)``, and the device label is cut to its column, so a label can
/// neither reorder the line nor push the columns after it.
enum PassRecordText {
    static let tableHeader =
        [("SERIAL", 18), ("DEVICE ACCOUNT ID", 20), ("STATE", 20), ("DEVICE", 16), ("CARD", 6)]
        .map { TableCell.pad($0.0, $0.1) }.joined() + "PASS TYPE"

    static func tableRow(_ record: PassRecord, reveal: Bool) -> String {
        TableCell.pad(serial(record, reveal: reveal), 18)
            + TableCell.pad(Mask.identifier(record.deviceAccountIdentifier, reveal: reveal), 20)
            + TableCell.pad(record.state.rawValue, 20)
            + TableCell.fit(record.device.map(SafeText.escaped) ?? "-", 16)
            + TableCell.pad(record.cardSuffix ?? "-", 6)
            + SafeText.escaped(record.passTypeIdentifier)
    }

    static func block(_ record: PassRecord, reveal: Bool) -> String {
        let lines: [(String, String)] = [
            ("serial number", serial(record, reveal: reveal)),
            ("device account id", Mask.identifier(record.deviceAccountIdentifier, reveal: reveal)),
            ("pass type", SafeText.escaped(record.passTypeIdentifier)),
            ("state", record.state.rawValue),
            ("device", record.device.map(SafeText.escaped) ?? "-"),
            ("card suffix", record.cardSuffix ?? "-"),
        ]
        return lines.map { TableCell.pad($0.0 + ":", 19) + $0.1 + "\n" }.joined()
    }

    private static func serial(_ record: PassRecord, reveal: Bool) -> String {
        SafeText.escaped(Mask.identifier(record.serialNumber, reveal: reveal))
    }
}
