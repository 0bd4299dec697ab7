import CCurl
import Synchronization

/// ``HTTPTransport`` on libcurl, with the options of one server (timeouts, TLS files). Every
/// transport of the process sends on the one transfer thread (``TransferLoop``), and its
/// kept-alive connections wait in that thread's pool: a transport is cheap, and concurrent
/// sends on one transport run at once, each on a connection of its own. Redirects are never
/// followed.
public final class CurlTransport: HTTPTransport, ConnectionCountingTransport {
    private let options: CurlTransportOptions
    private let loop: TransferLoop
    private let opened = Atomic<Int>(0)

    /// - Throws: ``TransportError`` when libcurl cannot be loaded and initialised.
    public init(options: CurlTransportOptions) throws(TransportError) {
        self.options = options
        loop = try TransferLoop.process.get()
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let outcome = await loop.transfer(request, options: options)
        opened.add(outcome.connectionsOpened, ordering: .relaxed)
        return try outcome.result.get()
    }

    /// The connections this transport opened so far (a kept-alive one is opened once).
    public var connectionsOpened: Int { opened.load(ordering: .relaxed) }
}

extension CurlTransport {
    /// libcurl's version line (`libcurl/8.x OpenSSL/… zlib/…`), for `tokenctl --version --verbose`.
    /// Loads libcurl when nothing has yet.
    public static var libraryVersion: String {
        tokenctl_curl_version().map { String(cString: $0) } ?? "libcurl (cannot be loaded)"
    }
}
