@testable import TokenActivation

// libFuzzer entry point for the deeplink parser (`make fuzz`).
// Properties: parsing never crashes, and whatever parses prints to a canonical deeplink
// that parses back to the same value.

private let parser = DeeplinkParser(
    formats: ["mybank://activate", "otherbank://wallet/activate"].compactMap(DeeplinkFormat.init))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDeeplink(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let parsed = try? parser.parse(text) else { return 0 }
    let canonical = parsed.canonicalText
    guard let again = try? parser.parse(canonical) else {
        fatalError("the canonical form of a parsed deeplink does not parse")
    }
    precondition(again == parsed, "parse ∘ print is not stable")
    precondition(canonical.utf8.count <= 3 * DeeplinkParser.maximumLength, "the canonical form grew unexpectedly")
    return 0
}
