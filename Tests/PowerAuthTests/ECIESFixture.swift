import Foundation
import PowerAuth
import Testing

/// One case of `ECIESFixtures/ecies-3.2.json`, written by `Reference/ecies_reference.py`.
struct ECIESFixture: Codable {
    var name: String
    var scope: String
    var sharedInfo1: String
    var applicationKey: String
    var applicationSecret: String
    var serverPrivateKey: String
    var serverPublicKey: String
    var ephemeralPrivateKey: String
    var activationId: String?
    var transportKey: String?
    var requestPlaintext: String
    var requestNonce: String
    var requestTimestamp: Int64
    var request: EciesPayload
    var responsePlaintext: String
    var responseNonce: String
    var responseTimestamp: Int64
    var response: EciesPayload

    static func all() throws -> [ECIESFixture] {
        struct File: Codable { var data: [ECIESFixture] }
        let url = try #require(
            Bundle.module.url(forResource: "ecies-3.2", withExtension: "json", subdirectory: "ECIESFixtures"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).data
    }

    var parameters: EciesParameters {
        get throws {
            if scope == "application" {
                return .application(
                    sharedInfo1: sharedInfo1, applicationKey: applicationKey, applicationSecret: applicationSecret)
            }
            return .activation(
                sharedInfo1: sharedInfo1, applicationKey: applicationKey, applicationSecret: applicationSecret,
                activationId: try #require(activationId), transportKey: try bytes(#require(transportKey))
            )
        }
    }

    func bytes(_ text: String) throws -> [UInt8] {
        try #require(Bytes.base64(text))
    }
}
