import HTTPTransport

/// The POST every onboarding and PowerAuth call makes: JSON both ways, `Accept-Language: en`.
enum JSONPost {
    static func request(
        baseURL: String, path: String, headers: [(name: String, value: String)], body: [UInt8]
    ) -> HTTPRequest {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        return HTTPRequest(
            method: "POST", url: base + path,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json"), ("Accept-Language", "en")]
                + headers,
            body: body
        )
    }
}
