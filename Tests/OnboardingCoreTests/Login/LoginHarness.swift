import Foundation
import GRDB
import HTTPTransport
import Logging
import Sandbox
import Storage
import TestSupport
import WalletModel

@testable import OnboardingCore

/// The PIN login on a real SQLite file and real libcurl, against the sandbox's MIRACL
/// platform and relying party on a free port, both reading one clock that moves when told.
final class LoginHarness: @unchecked Sendable {
    let directory = TemporaryDirectory()
    let clock = ManualClock(Date())
    let sandbox: TMPSandbox
    let identity = "alice@example.com"
    let pin = Array("1234".utf8)

    var platform: MIRACLPlatform { sandbox.miracl }
    var databasePath: String { directory.file("mpin.sqlite") }

    init() async throws {
        sandbox = try await TMPSandbox.start(port: 0, miracl: MIRACLOptions(clock: clock.reader))
    }

    var settings: LoginSettings {
        LoginSettings(
            connection: ConnectionSettings(
                baseURL: sandbox.baseURL, connectTimeoutMilliseconds: 1_000, timeoutMilliseconds: 5_000),
            clientID: "sandbox-client", relyingPartyURL: sandbox.baseURL + "/rp"
        )
    }

    /// A fresh service, as a new process of tokenctl would make it.
    func service(settings: LoginSettings? = nil) -> LoginService {
        LoginService(
            settings: settings ?? self.settings, instanceID: "default",
            database: .options(StoreOptions(path: databasePath)), logger: Logger(label: "test"), clock: clock.reader
        )
    }

    /// Registers, opens the e-mail link, confirms and sets `pin`.
    @discardableResult
    func registered(pin: [UInt8]? = nil) async throws -> LoginStatus {
        let service = service()
        _ = try await service.register(identity: identity, deviceName: "test-device")
        try await openEmailLink()
        _ = try await service.confirm()
        return try await service.setPIN(pin ?? self.pin)
    }

    /// Fetches the e-mailed link from the sandbox's mailbox endpoint and opens it, as the user would.
    func openEmailLink(userID: String? = nil) async throws {
        let link = try await emailLink(userID: userID)
        let answer = try await send(HTTPRequest(method: "GET", url: link, headers: [], body: []))
        guard answer.status == 200 else { throw LinkError.notConfirmed(answer.status) }
    }

    func emailLink(userID: String? = nil) async throws -> String {
        let user = (userID ?? identity).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let answer = try await send(
            HTTPRequest(
                method: "GET", url: "\(sandbox.baseURL)/_sandbox/mpin/email?userId=\(user)", headers: [], body: []))
        let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        guard let link = object?["link"] as? String else { throw LinkError.noEmail }
        return link
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await CurlTransport(
            options: CurlTransportOptions(connectTimeoutMilliseconds: 1_000, timeoutMilliseconds: 5_000)
        ).send(request)
    }

    /// The stored row, read straight from the file.
    func storedRow() throws -> Row? {
        let queue = try DatabaseQueue(path: databasePath)
        return try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM login_user") }
    }

    /// Requests the sandbox received on the platform and relying party paths.
    var loginRequestCount: Int {
        sandbox.requests.filter {
            $0.path.hasPrefix("/rps") || $0.path.hasPrefix("/rp/") || $0.path == "/authorize"
                || $0.path.hasPrefix("/dta2")
        }.count
    }

    enum LinkError: Error {
        case noEmail
        case notConfirmed(Int)
    }

    func stop() async throws {
        try await sandbox.shutdown()
    }
}
