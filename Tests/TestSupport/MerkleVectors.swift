import Foundation

/// The transparency-dev/merkle proof vectors (`Vectors/tlog`), as JSON objects with the
/// name of their file.
public enum MerkleVectors {
    public static func load(_ kind: String) throws -> [(name: String, object: [String: Any])] {
        guard let base = Bundle.module.resourceURL?.appendingPathComponent("Vectors/tlog/\(kind)") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let files =
            FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        return try files.sorted { $0.path < $1.path }.map { url in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
            return (String(url.path.dropFirst(base.path.count + 1)), object)
        }
    }

    /// A base64 hash of a vector, empty when null or missing.
    public static func bytes(_ value: Any?) -> [UInt8] {
        guard let text = value as? String else { return [] }
        return Data(base64Encoded: text).map(Array.init) ?? []
    }
}
