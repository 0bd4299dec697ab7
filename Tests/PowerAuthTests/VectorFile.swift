import Foundation
import PowerAuth
import Testing

/// One published vector file: every entry of its `data` array, with string values.
struct VectorFile {
    struct Entry {
        var input: [String: String]
        var output: [String: String]

        func bytes(_ key: String, in side: KeyPath<Entry, [String: String]> = \.input) throws -> [UInt8] {
            let text = try #require(self[keyPath: side][key], "missing \(key)")
            return try #require(Bytes.base64(text), "\(key) is not Base64")
        }
    }

    let name: String
    let entries: [Entry]

    init(_ name: String) throws {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors"))
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let data = try #require(object?["data"] as? [[String: Any]], "\(name) has no data array")
        self.name = name
        entries = data.map { entry in
            Entry(
                input: (entry["input"] as? [String: Any] ?? [:]).mapValues { "\($0)" },
                output: (entry["output"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            )
        }
    }

    /// Runs `check` on every entry and fails unless every one of them was checked.
    func checkAll(_ check: (Entry) throws -> Void) rethrows {
        var checked = 0
        for entry in entries {
            try check(entry)
            checked += 1
        }
        print("\(name).json: checked \(checked) of \(entries.count) entries")
        #expect(checked == entries.count)
        #expect(!entries.isEmpty)
    }
}
