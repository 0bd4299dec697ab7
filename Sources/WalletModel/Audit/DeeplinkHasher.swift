import Crypto
import HexCoding

/// HMAC-SHA256 (hex) of a deeplink under the database's deeplink-hash key: the audit can
/// tell two attempts came from the same deeplink without storing it.
///
/// The HMAC is keyed once and shared by a batch's workers (keying costs as much as hashing
/// a line). Each hash copies it; swift-crypto copies the digest state before a copy's first
/// update (copy on write), so the shared value is only ever read.
public struct DeeplinkHasher: @unchecked Sendable {
    private let keyed: HMAC<SHA256>

    public init(key: [UInt8]) {
        keyed = HMAC(key: SymmetricKey(data: key))
    }

    public func hash(_ deeplink: String) -> String {
        var mac = keyed
        mac.update(data: Array(deeplink.utf8))
        return Hex.encode(mac.finalize())
    }
}
