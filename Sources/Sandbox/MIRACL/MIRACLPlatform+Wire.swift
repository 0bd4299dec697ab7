import Foundation

extension MIRACLPlatform {
    /// The platform answers JSON as `text/plain; charset=utf-8` with `&` escaped as `\u0026`,
    /// as the real one does, so a client must parse the body whatever the Content-Type says.
    static func json(_ status: Int, _ object: [String: Any]) -> SandboxReply {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data()
        let body = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "&", with: "\\u0026")
        return .respond(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: body)
    }

    static func text(_ status: Int, _ message: String) -> SandboxReply {
        .respond(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: message)
    }

    static func object(_ body: [UInt8]) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
    }

    /// `a=1&b=2`, percent-decoded (`+` as a space).
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? text
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(
                .colon
            ).timeZone(separator: .omitted))
    }

    static func date(_ text: String) -> Date? {
        try? Date(text, strategy: .iso8601)
    }
}
