import HTTPTransport

/// A kept-alive libcurl connection to TMP whose requests are counted in the metrics: the
/// answer's class, the time, and whether a connection had to be opened for it.
final class MeasuredTransport: HTTPTransport {
    private let transport: CurlTransport
    private let metrics: ServiceMetrics

    init(options: CurlTransportOptions, metrics: ServiceMetrics) throws(TransportError) {
        transport = try CurlTransport(options: options)
        self.metrics = metrics
    }

    /// The service's TMP transports: one per worker, each closing its connection after
    /// `idleTimeoutMilliseconds` without a request.
    static func factory(metrics: ServiceMetrics, idleTimeoutMilliseconds: Int) -> TransportFactory {
        TransportFactory { options throws(TransportError) in
            var options = options
            options.maximumIdleSeconds = max(1, (idleTimeoutMilliseconds + 999) / 1000)
            return try MeasuredTransport(options: options, metrics: metrics)
        }
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        try await measured { () async throws(TransportError) in try await transport.send(request) }
    }

    func sendBlocking(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let before = transport.connectionsOpened
        let start = ContinuousClock.now
        do {
            let response = try transport.sendBlocking(request)
            metrics.tmpRequest(status: response.status, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
            return response
        } catch {
            metrics.tmpRequest(status: nil, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
            throw error
        }
    }

    private func measured(_ body: () async throws(TransportError) -> HTTPResponse) async throws(TransportError) -> HTTPResponse {
        let before = transport.connectionsOpened
        let start = ContinuousClock.now
        do {
            let response = try await body()
            metrics.tmpRequest(status: response.status, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
            return response
        } catch {
            metrics.tmpRequest(status: nil, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
            throw error
        }
    }
}
