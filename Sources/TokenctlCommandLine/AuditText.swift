import TextFormats
import TokenActivation
import TokenctlApp
import WalletModel

/// Human and CSV renderings of audit entries. Text output shows stored text through
/// ``SafeText/escaped(_:)``; CSV keeps values as they are, for the spreadsheet.
public enum AuditText {
    public static let header =
        pad("ID", 6) + pad("STARTED", 25) + pad("SERIAL", 12) + pad("TOKEN", 12) + pad("OUTCOME", 18) + pad("HTTP", 5)
        + "ERROR"

    public static func row(_ entry: AuditEntry, reveal: Bool) -> String {
        pad(String(entry.id), 6) + pad(entry.startedAt.iso8601, 25)
            + pad(SafeText.escaped(Mask.identifier(entry.serialNumber, reveal: reveal)), 12)
            + pad(entry.tokenUniqueReference.map { SafeText.escaped(Mask.identifier($0, reveal: reveal)) } ?? "-", 12)
            + Colour.outcome(pad(entry.outcome ?? "(unfinished)", 18), outcome: entry.outcome)
            + pad(entry.httpStatus.map(String.init) ?? "-", 5)
            + (entry.errorCode ?? "-")
    }

    public static func block(_ entry: AuditEntry, reveal: Bool) -> String {
        let lines: [(String, String?)] = [
            ("id", String(entry.id)), ("request id", entry.requestID),
            ("started at", entry.startedAt.iso8601), ("finished at", entry.finishedAt?.iso8601),
            ("serial number", SafeText.escaped(Mask.identifier(entry.serialNumber, reveal: reveal))),
            ("pass type", entry.passTypeIdentifier.map(SafeText.escaped)),
            ("device", entry.device.map(SafeText.escaped)),
            ("token reference", entry.tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) }),
            ("outcome", Colour.outcome(entry.outcome ?? "(unfinished)", outcome: entry.outcome)),
            ("error code", entry.errorCode),
            ("HTTP status", entry.httpStatus.map(String.init)), ("card last 4", entry.cardLast4Digits),
            ("comment", entry.comment.map(SafeText.escaped)), ("latency", entry.latencyMilliseconds.map { "\($0) ms" }),
            ("deeplink hash", entry.deeplinkHash),
        ]
        return lines.map { pad($0.0 + ":", 17) + ($0.1 ?? "-") + "\n" }.joined()
    }

    public static let csvHeader =
        "id,requestId,startedAt,finishedAt,serialNumber,tokenUniqueReference,outcome,errorCode,httpStatus,cardLast4Digits,comment,latencyMs"

    public static func csvLine(_ entry: AuditEntry, reveal: Bool) -> String {
        let values: [String] = [
            String(entry.id), entry.requestID, entry.startedAt.iso8601, entry.finishedAt?.iso8601 ?? "",
            Mask.identifier(entry.serialNumber, reveal: reveal),
            entry.tokenUniqueReference.map { Mask.identifier($0, reveal: reveal) } ?? "",
            entry.outcome ?? "", entry.errorCode ?? "", entry.httpStatus.map(String.init) ?? "",
            entry.cardLast4Digits ?? "", entry.comment ?? "", entry.latencyMilliseconds.map(String.init) ?? "",
        ]
        return values.map(CSV.field).joined(separator: ",")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        TableCell.pad(text, width)
    }
}
