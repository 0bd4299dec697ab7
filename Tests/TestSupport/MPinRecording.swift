import Foundation

/// The recorded exchanges of the MIRACL MFA SDK core with a real MIRACL server
/// (`Vectors/mfa_sdk_unit_tests_data.json`), indexed as in the file.
public struct MPinRecording: Sendable {
    public struct Exchange: Decodable, Sendable {
        public struct Request: Decodable, Sendable {
            public let method: String
            public let url: String
            public let data: String?
            public let context: String?
        }
        public struct Response: Decodable, Sendable {
            public let httpStatus: Int
            public let data: String?
        }
        public let request: Request
        public let response: Response

        public var requestJSON: [String: Any] { MPinRecording.object(request.data) }
        public var responseJSON: [String: Any] { MPinRecording.object(response.data) }
    }

    public let exchanges: [Exchange]

    public static func load() throws -> MPinRecording {
        guard
            let url = Bundle.module.url(
                forResource: "mfa_sdk_unit_tests_data", withExtension: "json", subdirectory: "Vectors")
        else {
            throw CocoaError(.fileNoSuchFile)
        }
        return MPinRecording(exchanges: try JSONDecoder().decode([Exchange].self, from: Data(contentsOf: url)))
    }

    public subscript(index: Int) -> Exchange { exchanges[index] }

    static func object(_ text: String?) -> [String: Any] {
        guard let data = text?.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }
}
