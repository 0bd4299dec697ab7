import Foundation
import TokenActivation

@testable import ServiceAPI

// libFuzzer entry point for the service's request decoder (`make fuzz`): the first byte
// picks the part (a JSON activation body, a batch body split into NDJSON lines, an
// Idempotency-Key, an audit query), the rest is its input.
// Properties: decoding never crashes; a decoded body's deeplink survives a round trip
// through JSON; an accepted key is 1 to 255 visible ASCII characters; the lines of a
// batch are never longer than the limit.

/// A batch line is kept to the parser's limit plus one byte (BatchStream).
private let batchLineLimit = 2049

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServiceRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0:
        guard let request = try? ActivationRequest.decode(bytes, contentType: "application/json") else { return 0 }
        let encoded = try! JSONEncoder().encode(["deeplink": request.deeplink])
        let again = try! ActivationRequest.decode(Array(encoded), contentType: "application/json; charset=utf-8")
        precondition(again.deeplink == request.deeplink, "a decoded deeplink does not survive a round trip")
    case 1:
        var splitter = LineSplitter(limit: batchLineLimit)
        var lines = splitter.append(bytes)
        if let last = splitter.finish() { lines.append(last) }
        for line in lines {
            precondition(line.count <= batchLineLimit, "a batch line is longer than the limit")
            _ = BatchFormat.ndjson.batchLine(Array(line.trimmingSpaces))
        }
    case 2:
        let text = String(decoding: bytes, as: UTF8.self)
        if let key = try? ActivationRequest.idempotencyKey(text) {
            precondition(
                (1...255).contains(key.utf8.count) && key.utf8.allSatisfy { (0x21...0x7E).contains($0) },
                "a bad Idempotency-Key was accepted")
        }
    default:
        let text = String(decoding: bytes, as: UTF8.self)
        let parameters = text.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        if let request = try? AuditQuery.request(parameters) {
            precondition(
                (1...AuditQuery.maximumLimit).contains(request.limit), "an audit limit out of range was accepted")
            precondition(request.before.map { $0 >= 1 } ?? true, "a before id out of range was accepted")
            // The next page's query reads back as the same request.
            let next = request.nextPage(before: 7).split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? "") : "")
            }
            let again = try? AuditQuery.request(next)
            precondition(
                again?.filter == request.filter && again?.limit == request.limit && again?.before == 7,
                "the next page's link does not read back")
        }
    }
    return 0
}
