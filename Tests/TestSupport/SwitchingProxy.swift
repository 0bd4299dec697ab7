import Foundation
import Glibc
import Synchronization

/// A TCP proxy on one loopback address that forwards every connection to a loopback port it
/// can be switched to, as a virtual IP or HAProxy moves to a promoted standby: the switch
/// cuts the connections it carries, and the next ones reach the new port. Threads of its own
/// pump the bytes (blocking sockets: a test tool, not a server).
public final class SwitchingProxy: Sendable {
    /// The port the proxy listens on, on 127.0.0.1.
    public let port: Int
    private let listener: Int32
    private let state: Mutex<(target: Int, open: Set<Int32>, stopped: Bool, silent: Bool)>

    /// Listens on a free loopback port, forwarding to `target`.
    public init(forwardingTo target: Int) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            close(listener)
            throw ProxyError(message: "the proxy cannot listen (errno \(errno))")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state = Mutex((target, [], false, false))
        let proxy = self
        Thread { proxy.accepting() }.start()
    }

    /// The host vanishes without a reset (a virtual IP whose machine is gone): nothing is
    /// forwarded any more, and new connections are taken and never answered, until
    /// ``switchTo(_:)`` cuts them.
    public func goSilent() {
        state.withLock { $0.silent = true }
    }

    /// From now on connections go to `target` (and the proxy speaks again); those open now are cut.
    public func switchTo(_ target: Int) {
        let open = state.withLock { state in
            state.target = target
            state.silent = false
            return state.open
        }
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Stops listening and cuts every connection.
    public func stop() {
        let open = state.withLock { state in
            state.stopped = true
            return state.open
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            if state.withLock({ $0.stopped }) {
                close(client)
                break
            }
            let (target, silent) = state.withLock { ($0.target, $0.silent) }
            if silent {
                state.withLock { _ = $0.open.insert(client) }
                continue
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                // Nothing listens there (the primary died): the client sees its connection close.
                close(upstream)
                close(client)
                continue
            }
            state.withLock { $0.open.formUnion([client, upstream]) }
            let proxy = self
            let done = Atomic<Int>(0)
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread {
                    proxy.pump(from: from, to: to)
                    // Either direction ending ends both; the second to end closes them.
                    shutdown(client, Int32(SHUT_RDWR))
                    shutdown(upstream, Int32(SHUT_RDWR))
                    if done.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
                        proxy.state.withLock { $0.open.subtract([client, upstream]) }
                        close(client)
                        close(upstream)
                    }
                }.start()
            }
        }
        close(listener)
    }

    private func pump(from source: Int32, to sink: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            // Silent: what arrives is held, never forwarded, until the connection is cut.
            while state.withLock({ $0.silent && $0.open.contains(source) }) { usleep(10_000) }
            guard state.withLock({ $0.open.contains(source) }) else { return }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes {
                    send(sink, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL))
                }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}

/// The proxy could not start.
public struct ProxyError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
