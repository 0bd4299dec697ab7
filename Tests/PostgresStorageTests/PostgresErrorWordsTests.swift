import NIOCore
import NIOPosix
import Testing
import WalletModel

@testable import PostgresStorage

/// Network failures are said in words, never as the library's type names or build paths.
@Suite struct PostgresErrorWordsTests {
    static let options = PostgresOptions(
        host: "db.bank.test", port: 5432, user: "u", database: "d", tls: .disable, password: nil, hostID: "a")

    @Test(arguments: [
        (IOError(errnoCode: 111, reason: "connect") as any Error, "connection refused"),
        (IOError(errnoCode: 113, reason: "connect"), "no route to host"),
        (
            ChannelError.connectTimeout(.seconds(3)),
            "no answer within 3000 ms (the connect timeout, tmp.connect-timeout-ms)"
        ),
        (SocketAddressError.unknown(host: "db.bank.test", port: 5432), "the host name db.bank.test does not resolve"),
        (ChannelError.ioOnClosedChannel, "the connection failed (--log-level debug shows the detail)"),
    ])
    func anErrorIsSaidInWords(error: any Error, words: String) {
        var options = Self.options
        options.connectTimeoutMilliseconds = 3000
        #expect(PostgresStore.words(error, host: "db.bank.test", options) == words)
    }
}
