import Crypto
import Dispatch
import HexCoding
import Synchronization
import Testing
import WalletModel

@testable import TokenActivation

@Suite struct DeeplinkHashTests {
    final class Mismatches: Sendable {
        let count = Atomic(0)
    }

    /// One keyed HMAC shared by many threads answers, for every line, the HMAC keyed anew.
    @Test func aSharedKeyedHashAnswersAsAFreshOne() {
        let key = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let shared = DeeplinkHasher(key: key)
        let mismatches = Mismatches()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for line in 0..<500 {
                let text = "mybank://activate?serialNumber=SN\(worker)-\(line)"
                let expected = Hex.encode(
                    HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: SymmetricKey(data: key)))
                if shared.hash(text) != expected { mismatches.count.add(1, ordering: .relaxed) }
            }
        }
        #expect(mismatches.count.load(ordering: .relaxed) == 0)
        #expect(DeeplinkHasher(key: key).hash("x") == shared.hash("x"))
    }
}
