import HTTPTypes
import Hummingbird
import NIOCore
import ServiceAPI
import TextFormats
import WalletModel

/// The handlers of the API's routes on one service; answers and problems in the API's forms.
struct APIRoutes: Sendable {
    let service: ActivationService

    static func json(
        _ status: Int, _ object: JSONObject.Value, headers extra: [(name: String, value: String)] = []
    ) -> Response {
        body(status, contentType: "application/json", object.utf8 + [0x0A], headers: extra)
    }

    static func json(
        _ status: Int, _ object: JSONObject, headers extra: [(name: String, value: String)] = []
    ) -> Response {
        json(status, .object(object), headers: extra)
    }

    static func problem(_ problem: Problem) -> Response {
        body(
            problem.status, contentType: "application/problem+json",
            JSONObject.Value.object(problem.json).utf8 + [0x0A], headers: problem.headers)
    }

    static func body(
        _ status: Int, contentType: String, _ bytes: [UInt8], headers extra: [(name: String, value: String)] = []
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        for (name, value) in extra {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
