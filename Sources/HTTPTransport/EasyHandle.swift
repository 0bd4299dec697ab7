import CCurl
import Glibc
import Logging

/// Owns a `CURL*` and the buffers of the request in progress.
final class EasyHandle: @unchecked Sendable {
    private static let logger = Logger(label: "tokenctl.http")
    private let curl: UnsafeMutableRawPointer
    private var responseBody: [UInt8] = []
    private var responseLimit = 0
    private var overflowed = false
    private var isHTTPS = false
    /// libcurl's detailed message for the last failure (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init?() {
        guard tokenctl_curl_load(), let curl = tokenctl_curl_easy_init() else { return nil }
        self.curl = curl
    }

    deinit {
        tokenctl_curl_easy_cleanup(curl)
        tokenctl_curl_slist_free_all(headers)
        body.deallocate()
        errorBuffer.deallocate()
    }

    /// The request being sent: libcurl reads the body and the header list until it is done.
    private var body = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Body bytes handed to libcurl so far.
    private var bodyOffset = 0
    /// libcurl asked for the body again after it had all of it: it was about to send the
    /// request a second time, on a new connection after a reused one died, without asking
    /// to rewind first. Refused like a rewind: the attempt is final.
    private var refusedResend = false
    private var headers: UnsafeMutablePointer<curl_slist>?

    /// The `CURL*`, for adding the handle to a multi handle.
    var pointer: UnsafeMutableRawPointer { curl }

    /// Sets every option for `request`; call ``result(of:)`` when libcurl is done with it.
    func prepare(_ request: HTTPRequest, options: CurlTransportOptions) {
        tokenctl_curl_easy_reset(curl)  // keeps live connections and caches, drops every option
        responseBody.removeAll(keepingCapacity: true)
        responseLimit = options.maximumResponseBytes
        overflowed = false
        isHTTPS = request.url.utf8.count >= 8 && request.url.prefix(8).lowercased() == "https://"
        tokenctl_curl_slist_free_all(headers)
        headers = nil
        for (name, value) in request.headers {
            headers = tokenctl_curl_slist_append(headers, "\(name): \(value)")
        }
        // Without this, libcurl adds "Expect: 100-continue" to larger POST bodies.
        headers = tokenctl_curl_slist_append(headers, "Expect:")
        body.deallocate()
        body = UnsafeMutableRawBufferPointer.allocate(byteCount: max(request.body.count, 1), alignment: 1)
        body.copyBytes(from: request.body)
        bodyOffset = 0
        refusedResend = false

        set(CURLOPT_URL, request.url)
        set(CURLOPT_CUSTOMREQUEST, request.method)
        if request.method == "POST" || request.method == "PUT" {
            // A PUT is sent as a POST whose verb CURLOPT_CUSTOMREQUEST replaces. The body goes through a read callback, not CURLOPT_POSTFIELDS, so that libcurl
            // has to ask before sending it again: on a reused connection that dies without
            // an answer, libcurl would otherwise re-send the request by itself. The seek
            // callback refuses once bytes were handed over, which turns that silent retry
            // into CURLE_SEND_FAIL_REWIND: the attempt is final, as the contract requires.
            set(CURLOPT_POST, 1)
            tokenctl_curl_setopt_off_t(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            tokenctl_curl_setopt_read_function(curl, CURLOPT_READFUNCTION, supplyBody)
            tokenctl_curl_setopt_pointer(curl, CURLOPT_READDATA, Unmanaged.passUnretained(self).toOpaque())
            tokenctl_curl_setopt_seek_function(curl, CURLOPT_SEEKFUNCTION, rewindBody)
            tokenctl_curl_setopt_pointer(curl, CURLOPT_SEEKDATA, Unmanaged.passUnretained(self).toOpaque())
        }
        tokenctl_curl_setopt_slist(curl, CURLOPT_HTTPHEADER, headers)
        set(CURLOPT_PROTOCOLS_STR, "http,https")
        set(CURLOPT_FOLLOWLOCATION, 0)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds)
        set(CURLOPT_TIMEOUT_MS, options.timeoutMilliseconds)
        set(CURLOPT_TCP_KEEPALIVE, 1)
        if let idle = options.maximumIdleSeconds { set(CURLOPT_MAXAGE_CONN, idle) }
        if let caFile = options.caFile { set(CURLOPT_CAINFO, caFile) }
        if let certificate = options.clientCertificateFile { set(CURLOPT_SSLCERT, certificate) }
        if let key = options.clientKeyFile { set(CURLOPT_SSLKEY, key) }
        errorBuffer[0] = 0
        tokenctl_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        tokenctl_curl_setopt_write_function(curl, CURLOPT_WRITEFUNCTION, receiveBody)
        tokenctl_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The connections the last transfer had to open: 0 when it reused a kept-alive one.
    var connectionsOpenedByLastTransfer: Int {
        var count = 0
        tokenctl_curl_getinfo_long(curl, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    /// The response, or the classified failure, once libcurl finished with `code`.
    func result(of code: CURLcode) -> Result<HTTPResponse, TransportError> {
        guard code == CURLE_OK else { return .failure(classify(code)) }
        var status = 0
        tokenctl_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPResponse(status: status, body: responseBody))
    }

    /// Tells "never reached the server" from "sent, no answer": bytes of the request left
    /// this process when libcurl reports a non-zero request size.
    private func classify(_ code: CURLcode) -> TransportError {
        var requestSize = 0
        tokenctl_curl_getinfo_long(curl, CURLINFO_REQUEST_SIZE, &requestSize)
        // A refused rewind means libcurl wanted to send the body again: it was sent.
        let sent = requestSize > 0 || code == CURLE_SEND_FAIL_REWIND || refusedResend
        let message = String(cString: errorBuffer)
        let detail = message.isEmpty ? String(cString: tokenctl_curl_easy_strerror(code)) : message
        // The library's own text, for whoever debugs; messages say it in words (TransportError.words).
        Self.logger.debug("libcurl failed", metadata: ["code": "\(code.rawValue)", "detail": "\(detail)"])
        if code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR,
            let refusal = handshakeRefusal(message: message, detail: detail, sent: sent)
        {
            return refusal
        }
        let kind: TransportError.Kind =
            switch code {
            case CURLE_COULDNT_CONNECT: sent ? .connectionLost : .connectionRefused
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: .dnsFailure
            case CURLE_OPERATION_TIMEDOUT: sent ? .timeout : .connectTimeout
            case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE: .tlsFiles
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CIPHER, CURLE_SSL_ENGINE_NOTFOUND,
                CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
                CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_USE_SSL_FAILED:
                .tls
            case CURLE_WRITE_ERROR where overflowed: .responseTooLarge
            case CURLE_ABORTED_BY_CALLBACK where refusedResend: .connectionLost
            case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE, CURLE_SEND_FAIL_REWIND:
                .connectionLost
            default: .other
            }
        let wasSent: Bool =
            switch kind {
            // These fail before the request is written (TLS: during the handshake).
            case .connectionRefused, .dnsFailure, .connectTimeout, .tls, .tlsFiles: false
            case .responseTooLarge: true
            case .timeout, .connectionLost, .other: sent
            }
        return TransportError(kind, wasSent: wasSent, detail: detail)
    }

    /// TLS 1.3 ends the client's side of the handshake before the server checks the client
    /// certificate, so a refusal shows up as a failed read or write: an alert the server
    /// sends only while refusing a handshake, or a TLS connection closed before the request
    /// was written. Either way the server's application never saw the request.
    private func handshakeRefusal(message: String, detail: String, sent: Bool) -> TransportError? {
        let alerts = [
            "certificate required", "bad certificate", "unknown ca", "certificate unknown",
            "certificate expired", "certificate revoked", "unsupported certificate", "handshake failure",
        ]
        if alerts.contains(where: { message.contains("alert " + $0) }) {
            return TransportError(.tls, wasSent: false, detail: detail)
        }
        guard isHTTPS && !sent else { return nil }
        return TransportError(
            .tls, wasSent: false,
            detail:
                "the server closed the TLS connection before the request was sent; it may have refused the client certificate (\(detail))"
        )
    }

    fileprivate func copyBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if bodyOffset > 0 && bodyOffset == body.count {
            refusedResend = true
            return Int(CURL_READFUNC_ABORT)
        }
        let count = min(buffer.count, body.count - bodyOffset)
        guard count > 0 else { return 0 }
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: body[bodyOffset..<bodyOffset + count]))
        bodyOffset += count
        return count
    }

    /// Rewinding is allowed only before any byte was handed to libcurl.
    fileprivate func rewind(to offset: Int) -> Bool {
        guard offset == 0, bodyOffset == 0 else { return false }
        return true
    }

    fileprivate func append(_ data: UnsafeRawBufferPointer) -> Bool {
        guard responseBody.count + data.count <= responseLimit else {
            overflowed = true
            return false
        }
        responseBody.append(contentsOf: data)
        return true
    }

    private func set(_ option: CURLoption, _ value: Int) {
        tokenctl_curl_setopt_long(curl, option, value)
    }

    private func set(_ option: CURLoption, _ value: String) {
        // libcurl copies string options (since 7.17), so a temporary C string is fine.
        tokenctl_curl_setopt_string(curl, option, value)
    }
}

private func supplyBody(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else { return 0 }
    let handle = Unmanaged<EasyHandle>.fromOpaque(context).takeUnretainedValue()
    return handle.copyBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
}

private func rewindBody(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context else { return Int32(CURL_SEEKFUNC_FAIL) }
    let handle = Unmanaged<EasyHandle>.fromOpaque(context).takeUnretainedValue()
    return origin == SEEK_SET && handle.rewind(to: Int(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}

private func receiveBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let data, let context else { return 0 }
    let handle = Unmanaged<EasyHandle>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    return handle.append(bytes) ? size * count : 0
}
