/// The client side of M-Pin (milagro-crypto-c `mpin.c`): recombining the client secret,
/// extracting the PIN from it into a token, and the two passes of a login.
public enum MPinClientCrypto {
    /// CS = CS1 + CS2: the shares of the two D-TAs.
    /// - Throws: `MPinCryptoError.degenerate` when the sum is the point at infinity.
    public static func clientSecret(share1: G1Point, share2: G1Point) throws(MPinCryptoError) -> G1Point {
        let secret = share1 + share2
        guard !secret.isInfinity else { throw .degenerate }
        return secret
    }

    /// token = CS − pin·H(ID): useless without the PIN, so it may be stored.
    public static func token(clientSecret: G1Point, pin: PIN, identity: MPinIdentity) throws(MPinCryptoError) -> G1Point
    {
        let token = clientSecret - pin.scalar * identity.hashed
        guard !token.isInfinity else { throw .degenerate }
        return token
    }

    /// Pass 1: a random x and U = x·H(ID). The caller keeps the returned secret for pass 2.
    public static func pass1(identity: MPinIdentity, x: Scalar = .random()) -> (u: G1Point, x: Scalar) {
        (x * identity.hashed, x)
    }

    /// Pass 2: V = −((x + y) mod r)·(token + pin·H(ID)). The server accepts when
    /// e(V, Q)·e(U + y·H(ID), sQ) = 1, i.e. when token + pin·H(ID) is the client secret.
    public static func pass2(x: Scalar, y: Scalar, token: G1Point, pin: PIN, identity: MPinIdentity) -> G1Point {
        var exponent = -(x + y)
        defer { exponent.wipe() }
        let restored = token + pin.scalar * identity.hashed
        return exponent * restored
    }
}
