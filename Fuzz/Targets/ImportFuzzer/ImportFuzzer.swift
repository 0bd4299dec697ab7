import Glibc
import WalletModel

@testable import TokenActivation

// libFuzzer entry point for the wallet importers' reading side (`make fuzz`): CSV or JSON
// Lines as FUZZ_IMPORT_FORMAT says (`csv`, the default, or `jsonl`), through the importer's
// chunked ByteReader, the row sources and the validation. The first byte picks the chunk
// size, so records cross chunk borders.
// Properties: reading never crashes and fails only with a documented import code; line
// numbers grow; every accepted row is valid; and the accepted rows, written by
// `wallet export`'s CSV writer, read back as the same records.

private let format: WalletFileFormat =
    getenv("FUZZ_IMPORT_FORMAT").map { String(cString: $0) } == "jsonl" ? .jsonl : .csv
private let file = ScratchFile()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunkSize = 1 + Int(data[0]) % 64
    let rows = read(UnsafeBufferPointer(start: data + 1, count: size - 1), as: format, chunkSize: chunkSize)
    guard !rows.isEmpty else { return 0 }
    let exported =
        ([WalletExporter.header] + rows.map { WalletExporter.csvLine($0.newRecord) }).joined(separator: "\r\n") + "\r\n"
    let again = Array(exported.utf8).withUnsafeBufferPointer { read($0, as: .csv, chunkSize: 4096) }
    precondition(again.map(\.newRecord) == rows.map(\.newRecord), "exported rows do not read back the same")
    return 0
}

private func read(
    _ bytes: UnsafeBufferPointer<UInt8>, as format: WalletFileFormat, chunkSize: Int
) -> [ValidatedPassFields] {
    var rows: [ValidatedPassFields] = []
    do {
        let reader = ByteReader(descriptor: file.replace(with: bytes), name: "fuzz", chunkSize: chunkSize)
        var source: any ImportRowSource =
            switch format {
            case .csv: try CSVRowSource(reader: reader)
            case .jsonl: JSONLinesRowSource(reader: reader)
            }
        var lastLine = 0
        while let (line, fields) = try source.next() {
            precondition(line > lastLine, "line numbers must grow")
            precondition(
                (try? PassRecordValidation.validate(fields.unvalidated)) == fields, "an accepted row is not valid")
            lastLine = line
            rows.append(fields)
        }
        return rows
    } catch let error as ImportError {
        precondition(
            ["import.invalidHeader", "import.invalidRow"].contains(error.code.rawValue),
            "undocumented code \(error.code.rawValue)")
        return []
    } catch {
        preconditionFailure("not an ImportError: \(error)")
    }
}

extension ValidatedPassFields {
    var unvalidated: PassRecordFields {
        var fields = PassRecordFields()
        fields[.serialNumber] = serialNumber
        fields[.deviceAccountIdentifier] = deviceAccountIdentifier
        fields[.passTypeIdentifier] = passTypeIdentifier
        fields[.state] = state?.rawValue
        fields[.device] = device
        fields[.cardSuffix] = cardSuffix
        return fields
    }
}

/// One unlinked temporary file, rewritten for every input and read from the start; in memory
/// where the system has /dev/shm (a file on disk costs the kernel's writeback on every input).
final class ScratchFile: @unchecked Sendable {
    let descriptor: Int32

    init() {
        let directory = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(directory)/tokenctl-fuzz-XXXXXX".utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(descriptor >= 0)
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
    }

    func replace(with bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        precondition(ftruncate(descriptor, 0) == 0)
        if let base = bytes.baseAddress, bytes.count > 0 {
            precondition(pwrite(descriptor, base, bytes.count, 0) == bytes.count)
        }
        precondition(lseek(descriptor, 0, SEEK_SET) == 0)
        return descriptor
    }
}
