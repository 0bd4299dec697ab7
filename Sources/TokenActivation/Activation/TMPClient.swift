import HTTPTransport
import TextFormats
import WalletModel

/// Sends activation requests to TMP: `POST {base}/issuer/push-provisioning/tokens/activations`
/// with `{"tokenUniqueReference": …}`, JSON headers, an `X-Request-ID` and the configured
/// authentication. It sends once per call: whether to try again is the
/// ``ActivationMachine``'s decision.
struct TMPClient: Sendable {
    static let activationPath = "/issuer/push-provisioning/tokens/activations"

    let transport: any HTTPTransport
    let endpoint: String
    let authentication: [(name: String, value: String)]

    init(transport: any HTTPTransport, baseURL: String, authentication: [(name: String, value: String)]) {
        self.transport = transport
        self.endpoint = Self.endpoint(baseURL: baseURL)
        self.authentication = authentication
    }

    /// The base URL (which may carry a path prefix) joined to the endpoint with one `/`.
    static func endpoint(baseURL: String) -> String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + activationPath
    }

    func request(tokenUniqueReference: String, requestID: String) -> HTTPRequest {
        let body = JSONObject(["tokenUniqueReference": .string(tokenUniqueReference)]).text
        let headers: [(name: String, value: String)] =
            [
                ("Content-Type", "application/json"), ("Accept", "application/json"), ("X-Request-ID", requestID),
            ] + authentication
        return HTTPRequest(method: "POST", url: endpoint, headers: headers, body: Array(body.utf8))
    }

    /// Sends the request once.
    func send(tokenUniqueReference: String, requestID: String) async -> Result<HTTPResponse, TransportError> {
        do throws(TransportError) {
            return .success(
                try await transport.send(request(tokenUniqueReference: tokenUniqueReference, requestID: requestID)))
        } catch {
            return .failure(error)
        }
    }
}
