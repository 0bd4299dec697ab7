import Crypto

/// RFC 9162 §2.1.4.2's verification of a consistency proof, as the witness runs it: written
/// from the RFC's steps, sharing nothing with the log's proof building.
public enum ConsistencyCheck {
    /// Whether `proof` shows that the tree of `first` leaves with head `firstHash` is a
    /// prefix of the tree of `second` leaves with head `secondHash` (0 < first < second).
    public static func holds(
        first: UInt64, second: UInt64, firstHash: [UInt8], secondHash: [UInt8], proof: [[UInt8]]
    ) -> Bool {
        guard first > 0, first < second, !proof.isEmpty, proof.allSatisfy({ $0.count == 32 }) else { return false }
        // Step 2: a first tree of 2^k leaves is itself a node of the second.
        let path = first & (first - 1) == 0 ? [firstHash] + proof : proof
        var fn = first - 1, sn = second - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = path[0], sr = path[0]
        for c in path.dropFirst() {
            guard sn != 0 else { return false }
            if fn & 1 == 1 || fn == sn {
                fr = node(c, fr)
                sr = node(c, sr)
                if fn & 1 == 0 {
                    while fn & 1 == 0 && fn != 0 {
                        fn >>= 1
                        sn >>= 1
                    }
                }
            } else {
                sr = node(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        return fr == firstHash && sr == secondHash && sn == 0
    }

    private static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: [0x01])
        hasher.update(data: left)
        hasher.update(data: right)
        return Array(hasher.finalize())
    }
}
