import Foundation
import Testing

/// The recorded exchanges with a MIRACL server, indexed as in the file.
struct Recording {
    struct Exchange: Decodable {
        struct Request: Decodable {
            let method: String
            let url: String
            let data: String?
            let context: String?
        }
        struct Response: Decodable {
            let httpStatus: Int
            let data: String?
        }
        let request: Request
        let response: Response

        var requestJSON: [String: Any] { Recording.object(request.data) }
        var responseJSON: [String: Any] { Recording.object(response.data) }
    }

    let exchanges: [Exchange]

    static func load() throws -> Recording {
        let url = try #require(Bundle.module.url(forResource: "mfa_sdk_unit_tests_data", withExtension: "json", subdirectory: "Vectors"))
        return Recording(exchanges: try JSONDecoder().decode([Exchange].self, from: Data(contentsOf: url)))
    }

    subscript(index: Int) -> Exchange { exchanges[index] }

    static func object(_ text: String?) -> [String: Any] {
        guard let data = text?.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }
}
