/// PowerAuth 3 signatures over normalized data with the hash-based counter.
public enum Signature {
    /// One 32-byte component per key; each key beyond the first is folded in
    /// through HMACs keyed with the counter-derived keys of the later factors.
    public static func components(data: [UInt8], keys: [[UInt8]], counter: [UInt8]) -> [[UInt8]] {
        keys.indices.map { index in
            var derived = Symmetric.hmacSHA256(key: keys[index], data: counter)
            for inner in 0..<index {
                let innerDerived = Symmetric.hmacSHA256(key: keys[inner + 1], data: counter)
                derived = Symmetric.hmacSHA256(key: innerDerived, data: derived)
            }
            return Symmetric.hmacSHA256(key: derived, data: data)
        }
    }

    /// The online signature of protocol 3.1 and later: the last 16 bytes of each
    /// component, concatenated and Base64-encoded.
    public static func online(data: [UInt8], keys: [[UInt8]], counter: [UInt8]) -> String {
        let bytes = components(data: data, keys: keys, counter: counter).flatMap { $0.suffix(16) }
        return Bytes.base64String(bytes)
    }

    /// The decimal form: each component's last 4 bytes as a positive 31-bit
    /// integer modulo 10^digits, zero-padded, joined by "-". Protocol 3.0 used it
    /// online with 8 digits; offline signatures use 4 to 8.
    public static func decimal(data: [UInt8], keys: [[UInt8]], counter: [UInt8], digits: Int = 8) -> String {
        precondition((4...8).contains(digits), "decimal signature components have 4 to 8 digits")
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        return components(data: data, keys: keys, counter: counter).map { component in
            let tail = component.suffix(4)
            let number = tail.reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7FFF_FFFF
            let text = String(number % modulus)
            return String(repeating: "0", count: digits - text.count) + text
        }.joined(separator: "-")
    }

    /// `METHOD&b64(uriId)&b64(nonce)&b64(body)&APP_SECRET` as bytes.
    public static func normalizedData(
        method: String, uriIdentifier: String, nonce: [UInt8], body: [UInt8], applicationSecret: String
    ) -> [UInt8] {
        let parts = [
            method.uppercased(),
            Bytes.base64String(Bytes.utf8(uriIdentifier)),
            Bytes.base64String(nonce),
            Bytes.base64String(body),
            applicationSecret,
        ]
        return Bytes.utf8(parts.joined(separator: "&"))
    }
}

/// The hash-based signature counter of protocol 3.
public enum HashCounter {
    /// `CTR_DATA` after one step: SHA-256 folded to 16 bytes.
    public static func next(_ counter: [UInt8]) -> [UInt8] {
        Bytes.fold(Symmetric.sha256(counter))
    }

    /// `CTR_DATA_HASH` as carried in the status blob.
    public static func hash(_ counter: [UInt8], transportKey: [UInt8]) -> [UInt8] {
        let key = KeyDerivation.derive(transportKey, index: 4000)
        return KeyDerivation.deriveInternal(key, data: counter)
    }
}
