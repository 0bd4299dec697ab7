import Glibc

/// Writes all of `text` to `descriptor`.
public func writeAll(_ descriptor: Int32, _ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// A raw HTTP client on a Unix socket, for a body sent a piece at a time.
public final class UnixClient {
    private let descriptor: Int32

    public init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard status == 0 else { throw UnixClientError(message: "cannot connect to \(path) (errno \(errno))") }
    }

    private var closed = false

    deinit { close() }

    public func close() {
        if !closed { Glibc.close(descriptor) }
        closed = true
    }

    public func send(_ text: String) {
        writeAll(descriptor, text)
    }

    /// One chunk of a chunked body.
    public func sendChunk(_ text: String) {
        send(String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n")
    }

    /// What is received until it holds `marker` (then all of it), the peer closes, or
    /// `timeout` passes (then "" unless the marker came).
    public func receive(until marker: String, timeout: Duration) -> String {
        let (text, found) = read(until: marker, timeout: timeout)
        return found ? text : ""
    }

    /// Everything received until the peer closes, or `timeout` passes.
    public func receiveAll(timeout: Duration) -> String {
        read(until: nil, timeout: timeout).text
    }

    private func read(until marker: String?, timeout: Duration) -> (text: String, found: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += buffer[..<count]
            if let marker, String(decoding: received, as: UTF8.self).contains(marker) {
                return (String(decoding: received, as: UTF8.self), true)
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}

public struct UnixClientError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
