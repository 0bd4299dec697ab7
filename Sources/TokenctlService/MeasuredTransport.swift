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
        let (before, start) = (transport.connectionsOpened, ContinuousClock.now)
        do {
            return record(try await transport.send(request), before: before, start: start)
        } catch {
            throw record(error, before: before, start: start)
        }
    }

    func sendBlocking(_ request: HTTPRequest) throws(TransportError) -> HTTPResponse {
        let (before, start) = (transport.connectionsOpened, ContinuousClock.now)
        do {
            return record(try transport.sendBlocking(request), before: before, start: start)
        } catch {
            throw record(error, before: before, start: start)
        }
    }

    /// Counts one request that was answered.
    private func record(_ response: HTTPResponse, before: Int, start: ContinuousClock.Instant) -> HTTPResponse {
        metrics.tmpRequest(status: response.status, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
        return response
    }

    /// Counts one request that got no answer.
    private func record(_ error: TransportError, before: Int, start: ContinuousClock.Instant) -> TransportError {
        metrics.tmpRequest(status: nil, duration: .now - start, connectionsOpened: transport.connectionsOpened - before)
        return error
    }
}
