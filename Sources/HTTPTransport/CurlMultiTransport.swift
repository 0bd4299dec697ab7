import CCurl
import Dispatch
import Foundation
import Glibc
import Synchronization

/// ``HTTPTransport`` on libcurl's multi interface: one thread drives every transfer, and
/// connections are kept alive in the multi handle's shared pool. Compared with a pool of
/// ``CurlTransport``s, no thread is handed a request per send. The thread keeps the
/// transport alive until ``shutdown()``.
///
/// Unchecked Sendable: the multi handle is used by the transfer thread only, except for
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread; `thread` is
/// written once, in `init`.
public final class CurlMultiTransport: HTTPTransport, @unchecked Sendable {
    private struct Submission {
        let request: HTTPRequest
        /// Takes the transfer's result, once, on the transfer thread.
        let deliver: @Sendable (Result<HTTPResponse, TransportError>) -> Void
    }

    private let options: CurlTransportOptions
    private let multi: UnsafeMutableRawPointer
    private let submissions = Mutex<[Submission]>([])
    private let stopping = Atomic<Bool>(false)
    private let opened = Atomic<Int>(0)
    private var thread = pthread_t()

    /// - Throws: ``TransportError`` when libcurl cannot be initialised.
    public init(options: CurlTransportOptions) throws(TransportError) {
        self.options = options
        guard tokenctl_curl_load(), let multi = tokenctl_curl_multi_init() else {
            throw TransportError(.other, wasSent: false, detail: "libcurl multi could not be initialised")
        }
        self.multi = multi
        let unmanaged = Unmanaged.passRetained(self)
        pthread_create(
            &thread, nil,
            { context in
                // The name `ps -L` and a profiler show (Linux takes at most 15 bytes).
                Thread.current.name = "tokenctl.curl"
                let transport = Unmanaged<CurlMultiTransport>.fromOpaque(context!).takeRetainedValue()
                transport.runLoop()
                return nil
            }, unmanaged.toOpaque())
    }

    /// Stops the transfer thread; requests still in flight fail.
    public func shutdown() {
        stopping.store(true, ordering: .releasing)
        tokenctl_curl_multi_wakeup(multi)
        pthread_join(thread, nil)
    }

    /// The connections this transport's pool opened so far (a kept-alive one is opened once).
    public var connectionsOpened: Int { opened.load(ordering: .relaxed) }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let result = await withCheckedContinuation { continuation in
            submit(Submission(request: request, deliver: { continuation.resume(returning: $0) }))
        }
        return try result.get()
    }

    private func submit(_ submission: Submission) {
        submissions.withLock { $0.append(submission) }
        tokenctl_curl_multi_wakeup(multi)
    }

    private func runLoop() {
        var active: [UnsafeMutableRawPointer: (EasyHandle, Submission)] = [:]
        var idle: [EasyHandle] = []
        while !stopping.load(ordering: .acquiring) {
            for submission in submissions.withLock({ pending in
                defer { pending = [] }
                return pending
            }) {
                guard let easy = idle.popLast() ?? EasyHandle() else {
                    submission.deliver(
                        .failure(TransportError(.other, wasSent: false, detail: "libcurl could not be initialised")))
                    continue
                }
                easy.prepare(submission.request, options: options)
                tokenctl_curl_multi_add_handle(multi, easy.pointer)
                active[easy.pointer] = (easy, submission)
            }
            var running: Int32 = 0
            tokenctl_curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = tokenctl_curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let (easy, submission) = active.removeValue(forKey: handle)
                else { continue }
                let code = message.pointee.data.result
                tokenctl_curl_multi_remove_handle(multi, handle)
                opened.add(easy.connectionsOpenedByLastTransfer, ordering: .relaxed)
                submission.deliver(easy.result(of: code))
                idle.append(easy)
            }
            tokenctl_curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for (easy, submission) in active.values {
            tokenctl_curl_multi_remove_handle(multi, easy.pointer)
            submission.deliver(.failure(TransportError(.other, wasSent: true, detail: "the transport was shut down")))
        }
        for submission in submissions.withLock({ pending in
            defer { pending = [] }
            return pending
        }) {
            submission.deliver(.failure(TransportError(.other, wasSent: false, detail: "the transport was shut down")))
        }
        tokenctl_curl_multi_cleanup(multi)
    }
}
