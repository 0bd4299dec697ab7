import HTTPTransport

@testable import TokenActivation

// libFuzzer entry point for the TMP response decoder (`make fuzz`). The first two bytes
// pick the HTTP status (100–599), the rest is the body.
// Properties: decoding never crashes; only a 2xx answer is a business result; every
// error code is a documented one and keeps the HTTP status; the last four digits are
// four ASCII digits or absent; a comment is at most 256 characters without controls.

private let codes: Set<String> = [
    "tmp.redirect", "tmp.serverError", "tmp.unexpectedStatus", "tmp.invalidBody", "tmp.unknownStatus",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTMPAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let status = bytes.count >= 2 ? 100 + (Int(bytes[0]) << 8 | Int(bytes[1])) % 500 : 200
    let answer = TMPAnswer(HTTPResponse(status: status, body: Array(bytes.dropFirst(2))))
    precondition(answer.httpStatus == status, "the HTTP status was not kept")
    switch answer.outcome {
    case .approved, .declined, .failed:
        precondition((200..<300).contains(status), "a business result at HTTP \(status)")
        precondition(answer.error == nil)
    case .unknown:
        precondition((500..<600).contains(status) && answer.error?.code.rawValue == "tmp.serverError")
    case .error:
        precondition(
            codes.contains(answer.error?.code.rawValue ?? ""),
            "undocumented code \(answer.error?.code.rawValue ?? "nil")")
    default:
        preconditionFailure("outcome \(answer.outcome) from an HTTP answer")
    }
    if let digits = answer.cardLast4Digits {
        precondition(digits.utf8.count == 4 && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
    }
    if let comment = answer.comment {
        precondition(comment.count <= TMPAnswer.maximumCommentLength)
        precondition(
            !comment.unicodeScalars.contains {
                $0.value < 0x20 || $0.value == 0x7F || ($0.value >= 0x80 && $0.value < 0xA0)
            })
    }
    return 0
}
