import CCurl
import Foundation
import Glibc
import Synchronization

/// libcurl's multi interface on one thread of its own, the process's only transport thread:
/// every transfer (to TMP, the onboarding servers, the witnesses) runs here, and kept-alive
/// connections wait in the multi handle's one pool. Async callers hand a transfer over and are
/// resumed with its outcome; `curl_multi_wakeup` tells the thread there is one.
///
/// Unchecked Sendable: the multi handle is used by the transfer thread only, except for
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread.
final class TransferLoop: @unchecked Sendable {
    /// What one transfer came to, and the connections it had to open (0 on a kept-alive one).
    struct Outcome: Sendable {
        let result: Result<HTTPResponse, TransportError>
        let connectionsOpened: Int
    }

    private struct Submission {
        let request: HTTPRequest
        let options: CurlTransportOptions
        /// Takes the transfer's outcome, once, on the transfer thread.
        let deliver: @Sendable (Outcome) -> Void
    }

    /// The process's loop, started with the first transport (nil: libcurl cannot be loaded).
    static let process: Result<TransferLoop, TransportError> = Result { () throws(TransportError) in
        try TransferLoop()
    }

    private let multi: UnsafeMutableRawPointer
    private let submissions = Mutex<[Submission]>([])

    private init() throws(TransportError) {
        guard tokenctl_curl_load(), let multi = tokenctl_curl_multi_init() else {
            throw TransportError(.other, wasSent: false, detail: "libcurl multi could not be initialised")
        }
        self.multi = multi
        var thread = pthread_t()
        // The thread holds the loop for the life of the process.
        let retained = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                // The name `ps -L` and a profiler show (Linux takes at most 15 bytes).
                Thread.current.name = "tokenctl.curl"
                Unmanaged<TransferLoop>.fromOpaque(context!).takeUnretainedValue().run()
                return nil
            }, retained)
        pthread_detach(thread)
    }

    /// Runs `request` with `options` on the loop's thread.
    func transfer(_ request: HTTPRequest, options: CurlTransportOptions) async -> Outcome {
        await withCheckedContinuation { continuation in
            submissions.withLock {
                $0.append(
                    Submission(request: request, options: options, deliver: { continuation.resume(returning: $0) }))
            }
            tokenctl_curl_multi_wakeup(multi)
        }
    }

    private func run() -> Never {
        var active: [UnsafeMutableRawPointer: (EasyHandle, Submission)] = [:]
        var idle: [EasyHandle] = []
        // libcurl's default keeps four idle connections per transfer in progress, so a quiet
        // moment would close the connections a burst opened: the pool keeps what was asked.
        var keptConnections = 0
        while true {
            for submission in submissions.withLock({ pending in
                defer { pending = [] }
                return pending
            }) {
                guard let easy = idle.popLast() ?? EasyHandle() else {
                    let error = TransportError(.other, wasSent: false, detail: "libcurl could not be initialised")
                    submission.deliver(Outcome(result: .failure(error), connectionsOpened: 0))
                    continue
                }
                if submission.options.keptConnections > keptConnections {
                    keptConnections = submission.options.keptConnections
                    tokenctl_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, keptConnections)
                }
                easy.prepare(submission.request, options: submission.options)
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
                submission.deliver(
                    Outcome(result: easy.result(of: code), connectionsOpened: easy.connectionsOpenedByLastTransfer))
                idle.append(easy)
            }
            // Wakes for a socket, libcurl's next timeout, or curl_multi_wakeup.
            tokenctl_curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }
}
