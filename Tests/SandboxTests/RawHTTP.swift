import Foundation
import Testing

/// One raw HTTP/1.1 exchange on a plain socket (`Connection: close`): no client code.
func rawHTTP(_ port: Int, _ raw: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    try #require(connected == 0)
    _ = raw.withCString { send(fd, $0, strlen($0), 0) }
    var answer = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        if count <= 0 { break }
        answer += buffer[0..<count]
    }
    return String(decoding: answer, as: UTF8.self)
}

/// A raw request with a JSON body (or none) and the headers given.
func rawRequest(
    _ port: Int, _ method: String, _ target: String, body: String? = nil, headers: [String] = []
) throws -> String {
    var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)", "Connection: close"] + headers
    if let body { lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"] }
    return try rawHTTP(port, lines.joined(separator: "\r\n") + "\r\n\r\n" + (body ?? ""))
}
