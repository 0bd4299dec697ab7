import HTTPTransport
import Synchronization

/// A libcurl transport whose requests are told to the metrics: the answer's status (nil when
/// none came), the time, and the connections opened for it.
final class MeasuredTransport: HTTPTransport {
    typealias Record = @Sendable (_ status: Int?, _ duration: Duration, _ connectionsOpened: Int) -> Void

    private let transport: any ConnectionCountingTransport
    private let record: Record
    /// The transport's connection count as last recorded: concurrent requests on the
    /// transport each count what no other request counted before (the counter only grows).
    private let counted = Atomic<Int>(0)

    init(_ transport: any ConnectionCountingTransport, record: @escaping Record) {
        self.transport = transport
        self.record = record
    }

    /// The service's transports to one server, closing their connections after
    /// `idleTimeoutMilliseconds` without a request when that is given.
    static func factory(idleTimeoutMilliseconds: Int? = nil, record: @escaping Record) -> TransportFactory {
        @Sendable func idling(_ options: CurlTransportOptions) -> CurlTransportOptions {
            var options = options
            if let idleTimeoutMilliseconds {
                options.maximumIdleSeconds = max(1, (idleTimeoutMilliseconds + 999) / 1000)
            }
            return options
        }
        return TransportFactory { options throws(TransportError) in
            MeasuredTransport(try CurlTransport(options: idling(options)), record: record)
        }
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let start = ContinuousClock.now
        do {
            return answered(try await transport.send(request), start: start)
        } catch {
            throw failed(error, start: start)
        }
    }

    private func answered(_ response: HTTPResponse, start: ContinuousClock.Instant) -> HTTPResponse {
        record(response.status, .now - start, newConnections())
        return response
    }

    private func failed(_ error: TransportError, start: ContinuousClock.Instant) -> TransportError {
        record(nil, .now - start, newConnections())
        return error
    }

    /// The connections opened since any request last counted them.
    private func newConnections() -> Int {
        let (before, after) = counted.max(transport.connectionsOpened, ordering: .relaxed)
        return after - before
    }
}
