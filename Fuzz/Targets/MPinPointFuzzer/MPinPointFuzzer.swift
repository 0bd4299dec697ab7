import HexCoding

@testable import MPin

// libFuzzer entry point for the M-Pin wire decoders (`make fuzz`): points as hex text and as
// `04‖x‖y` bytes, scalars as hex. Properties: decoding never crashes; an accepted point is on
// the curve and encodes back to the same bytes (hex in lowercase); an accepted scalar is below r.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPinPoint(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let point = try? G1Point(hex: text) {
        precondition(point.hex == text.lowercased(), "a decoded point does not encode back to its hex")
        precondition(try! G1Point(encoded: point.encoded!) == point)
    }
    if let point = try? G1Point(encoded: bytes) {
        precondition(point.encoded == bytes, "a decoded point does not encode back to its bytes")
        let (x, y) = point.affine!
        precondition(y.squared == x.squared * x + Curve.b, "an accepted point is off the curve")
    }
    if let scalar = Scalar(hex: text) {
        precondition(scalar.value < Curve.r, "an accepted scalar is not reduced")
    }
    if let decoded = Hex.decode(text) {
        precondition(Hex.encode(decoded) == text.lowercased())
    }
    return 0
}
