import ErrorCodes
import Testing
import TokenActivation

@testable import ServiceAPI
@testable import TokenctlService

/// The service's small parts as values: status mapping, addresses, comparisons, buffers,
/// admission.
struct ServicePartsTests {
    /// DESIGN §8: 0, 2, 3 → 200; 64, 65 → 400; 66 → 404; 75 → 409; 77 → 403; 69, 76 → 502; 74 → 503; 78 → 500.
    @Test func mapsEveryExitStatusToItsHTTPStatus() {
        let expected: [ErrorCodes.ExitStatus: Int] = [
            .success: 200, .declined: 200, .failed: 200, .usage: 400, .rejectedInput: 400, .notFound: 404,
            .temporary: 409, .userActivationRequired: 403, .unavailable: 502, .protocolError: 502,
            .databaseError: 503, .configuration: 500,
        ]
        #expect(Set(expected.keys) == Set(ErrorCodes.ExitStatus.allCases))
        for (status, http) in expected {
            #expect(ActivationStatus.httpStatus(exitCode: status) == http, "\(status)")
        }
    }

    @Test func theServiceCodesHaveTheirDocumentedExitStatus() {
        for code in [
            ErrorCode.requestInvalid, .requestTooLarge, .requestUnsupportedMediaType, .requestNotFound,
            .requestMethodNotAllowed, .idempotencyMismatch,
        ] {
            #expect(code.exitStatus == .usage)
        }
        #expect(ErrorCode.serviceUnauthorized.exitStatus == .userActivationRequired)
        #expect(ErrorCode.serviceOverloaded.exitStatus == .temporary)
        #expect(ErrorCode.serviceAlreadyRunning.exitStatus == .temporary)
    }

    @Test func aProblemCarriesTheStableMembers() {
        let problem = Problem.methodNotAllowed(allowed: ["POST"])
        #expect(problem.headers.first?.name == "Allow" && problem.headers.first?.value == "POST")
        let text = problem.json.text
        #expect(text.hasPrefix(#"{"type": "urn:tokenctl:error:request.methodNotAllowed", "title": "#))
        #expect(
            text.contains(#""status": 405"#) && text.contains(#""code": "request.methodNotAllowed""#)
                && text.contains(#""exitCode": 64"#))
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080, true), ("localhost:0", "localhost", 0, true),
        ("[::1]:443", "::1", 443, true),
        ("0.0.0.0:80", "0.0.0.0", 80, false), ("10.1.2.3:9", "10.1.2.3", 9, false),
        ("[fe80::1]:1", "fe80::1", 1, false),
        ("127.evil.example:1", "127.evil.example", 1, false),
    ])
    func readsListenAddresses(text: String, host: String, port: Int, loopback: Bool) throws {
        let address = try #require(ListenAddress(text))
        #expect(address.host == host && address.port == port && address.isLoopback == loopback)
    }

    @Test(arguments: ["", "8080", ":8080", "host:", "host:65536", "host:-1", "::1:80", "[::1]80", "host:8x"])
    func refusesBadListenAddresses(text: String) {
        #expect(ListenAddress(text) == nil)
    }

    @Test func comparesSecretsWhole() {
        #expect(ConstantTime.equal(Array("token".utf8), Array("token".utf8)))
        #expect(!ConstantTime.equal(Array("token".utf8), Array("tokem".utf8)))
        #expect(!ConstantTime.equal(Array("token".utf8), Array("token2".utf8)))
        #expect(!ConstantTime.equal(Array("".utf8), Array("t".utf8)))
        #expect(!ConstantTime.equal(Array("a".utf8) + [0], Array("a".utf8)))
    }

}

/// Holds tasks until opened.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
