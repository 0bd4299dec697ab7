/// A `--listen HOST:PORT` address (`[::1]:8443` for IPv6; port 0 picks a free port).
public struct ListenAddress: Sendable, Equatable {
    public let host: String
    public let port: Int

    /// Nil when `text` is not of that form.
    public init?(_ text: String) {
        let host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (0...65_535).contains(number), port.allSatisfy(\.isASCII) else {
            return nil
        }
        self.host = String(host)
        self.port = number
    }

    /// As given on the command line: an IPv6 host in brackets (`[::]:8443`).
    public var display: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// 127.0.0.0/8, ::1 and localhost: reachable from this host only.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.") && host.split(separator: ".").count == 4
    }
}
