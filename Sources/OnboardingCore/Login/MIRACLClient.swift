import Foundation
import HTTPTransport

/// Talks to the MIRACL platform and the relying party: sends what ``MIRACLRequests`` builds
/// and reads the answers as JSON whatever their Content-Type (the platform sends
/// `text/plain`). Holds no state and no secret.
struct MIRACLClient {
    let settings: LoginSettings
    let transport: any HTTPTransport

    struct Answer {
        let status: Int
        let text: String
        let object: [String: Any]?

        func string(_ key: String) -> String? { object?[key] as? String }
    }

    func send(_ request: HTTPRequest, server: String = "the MIRACL platform") async throws(LoginError) -> Answer {
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw LoginError.transport(error, server: server)
        }
        let text = String(decoding: response.body, as: UTF8.self)
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return Answer(status: response.status, text: text, object: object)
    }

    /// The answer's field, or a protocol error naming the step.
    func require(_ answer: Answer, _ key: String, step: String) throws(LoginError) -> String {
        guard answer.status == 200 else {
            throw LoginError.unexpected(status: answer.status, step: step, body: answer.text)
        }
        guard let value = answer.string(key), !value.isEmpty else {
            throw LoginError(.loginProtocol, "\(step) answered without \(key)")
        }
        return value
    }

    func discover() async throws(LoginError) -> Discovery {
        let answer = try await send(
            MIRACLRequests.clientSettings(backendURL: settings.connection.baseURL, clientID: settings.clientID))
        let step = "discovery (clientSettings)"
        guard answer.status == 200 else {
            if answer.status == 406 || answer.status == 401 || answer.status == 403 {
                throw LoginError(
                    .loginProtocol,
                    "the platform does not know client id \(settings.clientID) (HTTP \(answer.status)); check login.client-id"
                )
            }
            throw LoginError.unexpected(status: answer.status, step: step, body: answer.text)
        }
        var authenticateURL = answer.string("mobileAuthenticateURL") ?? ""
        if authenticateURL.isEmpty { authenticateURL = try require(answer, "authenticateURL", step: step) }
        return Discovery(
            registerURL: try require(answer, "registerURL", step: step),
            signatureURL: try require(answer, "signatureURL", step: step),
            certivoxURL: try require(answer, "certivoxURL", step: step),
            mpinAuthServerURL: try require(answer, "mpinAuthServerURL", step: step),
            mobileAuthenticateURL: authenticateURL,
            codeStatusURL: try require(answer, "codeStatusURL", step: step),
            backendURL: settings.connection.baseURL
        )
    }

    /// A fresh access code: the relying party starts an authorization, the platform's
    /// authorize endpoint answers with a `qrURL` whose fragment is the code.
    func accessCode() async throws(LoginError) -> String {
        let start = try await send(
            MIRACLRequests.authorizeURL(relyingPartyURL: settings.relyingPartyURL), server: "the relying party")
        let url = try require(start, "authorizeURL", step: "the relying party's authzurl")
        let authorized = try await send(MIRACLRequests.authorize(url: url, clientID: settings.clientID))
        let qrURL = try require(authorized, "qrURL", step: "authorize")
        guard let hash = qrURL.firstIndex(of: "#"), qrURL.index(after: hash) < qrURL.endIndex else {
            throw LoginError(.loginProtocol, "authorize answered a qrURL without an access code")
        }
        return String(qrURL[qrURL.index(after: hash)...])
    }
}
