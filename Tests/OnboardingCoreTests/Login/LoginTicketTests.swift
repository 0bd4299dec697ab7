import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import Storage
import Synchronization
import TestSupport
import Testing
import WalletModel

@testable import OnboardingCore

/// The platform's 412: a reused authOTT or an invalid access code (WID), against the sandbox.
@Suite struct LoginTicketTests {
    /// Passes requests to libcurl, letting a test rewrite one on its way or send one again.
    final class Interposer: HTTPTransport {
        let rewrite: @Sendable (HTTPRequest) -> HTTPRequest
        let replays = Mutex<[Int]>([])
        let replayPath: String?

        init(replayPath: String? = nil, rewrite: @escaping @Sendable (HTTPRequest) -> HTTPRequest = { $0 }) {
            self.rewrite = rewrite
            self.replayPath = replayPath
        }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            let transport = try CurlTransport(
                options: CurlTransportOptions(connectTimeoutMilliseconds: 1_000, timeoutMilliseconds: 5_000))
            let request = rewrite(request)
            let response = try await transport.send(request)
            if let replayPath, request.url.hasSuffix(replayPath), response.status == 200 {
                let again = try await transport.send(request)
                replays.withLock { $0.append(again.status) }
            }
            return response
        }
    }

    func service(_ harness: LoginHarness, _ transport: Interposer) -> LoginService {
        LoginService(
            settings: harness.settings, instanceID: "default",
            database: .options(StoreOptions(path: harness.databasePath)),
            logger: Logger(label: "test"), transports: .always(transport), clock: harness.clock.reader
        )
    }

    @Test func aReusedAuthOTTIsRefusedWith412() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let interposer = Interposer(replayPath: "/rps/authenticate")

            _ = try await service(harness, interposer).logIn(pin: harness.pin)
            #expect(interposer.replays.withLock { $0 } == [412])
        }
    }

    @Test func anInvalidAccessCodeIsARetryAndNotAWrongPIN() async throws {
        let harness = try await LoginHarness()
        try await withTeardown({ try? await harness.stop() }) {
            try await harness.registered()
            let interposer = Interposer { request in
                guard request.url.hasSuffix("/rps/pass2"),
                    var object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                else { return request }
                object["WID"] = "00000000000000000000000000000000"
                var changed = request
                changed.body = Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
                return changed
            }

            let error = await loginError { _ = try await service(harness, interposer).logIn(pin: harness.pin) }
            #expect(error?.code == .loginRetry)
            #expect(error?.nextStep == .logIn)
            #expect(try await harness.service().status().failedAttempts == 0)
            _ = try await harness.service().logIn(pin: harness.pin)
        }
    }
}
