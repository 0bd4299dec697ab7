import TokenActivation

/// Human-readable renderings of pass records.
enum PassRecordText {
    static let tableHeader = row(["SERIAL", "DEVICE ACCOUNT ID", "STATE", "DEVICE", "CARD", "PASS TYPE"])

    static func tableRow(_ record: PassRecord, reveal: Bool) -> String {
        row([
            Mask.identifier(record.serialNumber, reveal: reveal),
            Mask.identifier(record.deviceAccountIdentifier, reveal: reveal),
            record.state.rawValue, record.device ?? "-", record.cardSuffix ?? "-", record.passTypeIdentifier,
        ])
    }

    static func block(_ record: PassRecord, reveal: Bool) -> String {
        let lines: [(String, String)] = [
            ("serial number", Mask.identifier(record.serialNumber, reveal: reveal)),
            ("device account id", Mask.identifier(record.deviceAccountIdentifier, reveal: reveal)),
            ("pass type", record.passTypeIdentifier),
            ("state", record.state.rawValue),
            ("device", record.device ?? "-"),
            ("card suffix", record.cardSuffix ?? "-"),
        ]
        return lines.map { pad($0.0 + ":", 19) + $0.1 + "\n" }.joined()
    }

    private static let widths = [18, 20, 20, 10, 6]

    private static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { pad($0, $1) }.joined() + (cells.last ?? "")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
