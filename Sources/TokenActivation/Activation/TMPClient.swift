import HTTPTransport

/// Sends activation requests to TMP: `POST {base}/issuer/push-provisioning/tokens/activations`
/// with `{"tokenUniqueReference": …}`, JSON headers, an `X-Request-ID` and the configured
/// authentication. Retries only failures that provably never reached the server.
struct TMPClient: Sendable {
    static let activationPath = "/issuer/push-provisioning/tokens/activations"

    let transport: any HTTPTransport
    let endpoint: String
    let authentication: [(name: String, value: String)]
    let retry: Settings.Retry
    var sleep: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

    init(transport: any HTTPTransport, baseURL: String, authentication: [(name: String, value: String)], retry: Settings.Retry) {
        self.transport = transport
        self.endpoint = Self.endpoint(baseURL: baseURL)
        self.authentication = authentication
        self.retry = retry
    }

    /// The base URL (which may carry a path prefix) joined to the endpoint with one `/`.
    static func endpoint(baseURL: String) -> String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + activationPath
    }

    func request(tokenUniqueReference: String, requestID: String) -> HTTPRequest {
        let body = JSONObject(["tokenUniqueReference": .string(tokenUniqueReference)]).text
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/json"), ("Accept", "application/json"), ("X-Request-ID", requestID),
        ] + authentication
        return HTTPRequest(method: "POST", url: endpoint, headers: headers, body: Array(body.utf8))
    }

    /// Sends once, and again (up to the configured attempts) only while nothing was sent.
    func activate(tokenUniqueReference: String, requestID: String) async -> TMPAnswer {
        let request = request(tokenUniqueReference: tokenUniqueReference, requestID: requestID)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return TMPAnswer(try await transport.send(request))
            } catch {
                guard error.isRetryable, attempt < retry.attempts else { return TMPAnswer(error) }
                let waits = retry.backoffMilliseconds
                let wait = waits.isEmpty ? 0 : waits[min(attempt - 1, waits.count - 1)]
                await sleep(.milliseconds(wait))
            }
        }
    }
}
