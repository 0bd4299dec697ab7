/// The `key="value"` pairs of a `PowerAuth …` header (`X-PowerAuth-Authorization`,
/// `X-PowerAuth-Token`, `X-PowerAuth-Encryption`), parsed on the server side.
enum PowerAuthHeaderFields {
    static func parse(_ header: String?) -> [String: String]? {
        guard let header else { return nil }
        var text = Substring(header).drop { $0 == " " }
        guard text.hasPrefix("PowerAuth") else { return nil }
        text = text.dropFirst("PowerAuth".count)
        var fields: [String: String] = [:]
        while true {
            text = text.drop { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            guard !text.isEmpty else { break }
            guard let equals = text.firstIndex(of: "=") else { return nil }
            let key = String(text[..<equals])
            text = text[text.index(after: equals)...]
            guard text.first == "\"" else { return nil }
            text = text.dropFirst()
            guard let close = text.firstIndex(of: "\"") else { return nil }
            fields[key] = String(text[..<close])
            text = text[text.index(after: close)...]
        }
        return fields
    }
}
