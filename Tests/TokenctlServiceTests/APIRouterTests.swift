import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Sandbox
import TestSupport
import Testing
import TokenActivation
import TokenctlConfiguration
import TransparencyLog
import WalletModel

@testable import TokenctlService

/// The API's tables in process, served as `tokenctl serve` serves it (``ServedAPI``: the
/// listener and its connection rules, the HTTP/1.1 channel, the router and its middlewares)
/// on a loopback port: statuses, problems, headers and decoding, on a real SQLite file and the
/// TMP sandbox.
@Suite struct APIRouterTests {
    /// A warm service on a new wallet holding SN1 and SN2, and the sandbox it sends to.
    struct Fixture {
        let directory: TemporaryDirectory
        let sandbox: TMPSandbox
        let settings: Settings
        let service: ActivationService
        let logger: Logger

        /// - Parameter environment: more of the service's settings (another database, gates).
        /// - Parameter passes: the wallet's passes (serial number, device account identifier).
        /// - Parameter records: more passes, as whole records (a device label, a state).
        /// - Parameter slowDelay: how long the sandbox holds an `SBXSLOW` reference's answer.
        static func start(
            environment: [String: String] = [:], logger: Logger = Logger(label: "test"),
            passes: [(String, String)] = [("SN1", "DAPL00000000000001"), ("SN2", "DAPL00000000000002")],
            records: [PassRecord] = [], slowDelay: Duration = .seconds(5)
        ) async throws -> Fixture {
            let sandbox = try await TMPSandbox.start(port: 0, slowDelay: slowDelay)
            let directory = TemporaryDirectory()
            let settings = try await SettingsLoader(
                environment: ["HOME": directory.path, "TOKENCTL_TMP_BASE_URL": sandbox.baseURL].merging(environment) {
                    $1
                }
            )
            .load(
                flags: .init(
                    databasePath: environment["TOKENCTL_DATABASE_URL"] == nil ? directory.file("wallet.sqlite") : nil))
            _ = try await settings.store.migrate(logger: Logger(label: "test"))
            let store = try await settings.store.open(logger: Logger(label: "test"))
            for record in passes.map({ PassRecord(serialNumber: $0, deviceAccountIdentifier: $1) }) + records {
                _ = try await store.insertPass(record)
            }
            try await store.close()
            let service = try await ServiceRunner.activationService(
                settings: settings, environment: [:], version: "test", logger: logger)
            return Fixture(directory: directory, sandbox: sandbox, settings: settings, service: service, logger: logger)
        }

        func stop() async throws {
            await service.runtime.close()
            try await sandbox.shutdown()
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var uri: String
        var contentType: String? = "application/json"
        var body: String?
        var status: Int
        /// The problem's `code`; nil for a 200.
        var code: String?
        var header: (name: String, value: String)?

        var testDescription: String { "\(method) \(uri) → \(status)" }
    }

    static let table: [Row] = [
        Row(method: .get, uri: "/livez", status: 200),
        Row(method: .get, uri: "/nowhere", status: 404, code: "request.notFound"),
        // A path the router would match once trimmed is not the API's (DESIGN §8).
        Row(
            method: .post, uri: "/v1/activations/", body: #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#,
            status: 404, code: "request.notFound"),
        Row(method: .get, uri: "/livez/", status: 404, code: "request.notFound"),
        Row(method: .get, uri: "/v1//audit", status: 404, code: "request.notFound"),
        Row(
            method: .get, uri: "/v1/activations", status: 405, code: "request.methodNotAllowed",
            header: ("Allow", "POST")),
        Row(
            method: .delete, uri: "/v1/passes/SN1", status: 405, code: "request.methodNotAllowed",
            header: ("Allow", "GET")),
        Row(method: .post, uri: "/metrics", status: 405, code: "request.methodNotAllowed", header: ("Allow", "GET")),
        Row(
            method: HTTPRequest.Method("QUERY")!, uri: "/v1/audit", status: 405, code: "request.methodNotAllowed",
            header: ("Allow", "GET")),
        Row(
            method: HTTPRequest.Method("PROPFIND")!, uri: "/v1/activations/batch", status: 405,
            code: "request.methodNotAllowed", header: ("Allow", "POST")),
        Row(method: .head, uri: "/livez", status: 405, code: "request.methodNotAllowed", header: ("Allow", "GET")),
        Row(method: .post, uri: "/v1/activations", body: "{", status: 400, code: "request.invalid"),
        Row(method: .post, uri: "/v1/activations", body: #"{"deeplink": 5}"#, status: 400, code: "request.invalid"),
        Row(
            method: .post, uri: "/v1/activations", contentType: "text/plain",
            body: "mybank://activate?serialNumber=SN1", status: 415, code: "request.unsupportedMediaType"),
        Row(
            method: .post, uri: "/v1/activations", body: #"{"deeplink": "\#(String(repeating: "x", count: 70_000))"}"#,
            status: 413, code: "request.tooLarge"),
        Row(
            method: .post, uri: "/v1/activations/batch", contentType: "application/json", body: "", status: 415,
            code: "request.unsupportedMediaType"),
        Row(method: .get, uri: "/v1/passes/NOPE", status: 404, code: "wallet.notFound"),
        Row(method: .get, uri: "/v1/passes/SN%2F1", status: 404, code: "request.notFound"),
        Row(method: .get, uri: "/v1/passes/SN1", status: 200),
        Row(method: .get, uri: "/v1/audit?limit=many", status: 400, code: "request.invalid"),
        // As audit list reads its options: an outcome in any case, an empty window refused.
        Row(method: .get, uri: "/v1/audit?outcome=approved", status: 200),
        Row(method: .get, uri: "/v1/audit?unfinished=true", status: 200),
        Row(method: .get, uri: "/v1/audit?unfinished=true&outcome=APPROVED", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit?since=2026-11-22&until=2026-11-21", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/passes/SN1?device=Watch", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=01", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=0&size=0", status: 400, code: "request.invalid"),
        Row(
            method: .post, uri: "/v1/activations",
            body: #"{"deeplink": "mybank://activate?serialNumber=SN1", "dryRun": "yes"}"#, status: 400,
            code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit", status: 200),
        Row(method: .get, uri: "/v1/audit/checkpoint", status: 404, code: "audit.noCheckpoint"),
        Row(
            method: .post, uri: "/v1/audit/checkpoint", status: 405, code: "request.methodNotAllowed",
            header: ("Allow", "GET")),
        Row(method: .get, uri: "/v1/audit/proof", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=-1", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=0&index=1", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=0&leaf=1", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/proof?index=0", status: 404, code: "audit.noCheckpoint"),
        Row(method: .get, uri: "/v1/audit/consistency?from=0", status: 400, code: "request.invalid"),
        Row(method: .get, uri: "/v1/audit/consistency?from=1&to=5", status: 404, code: "audit.noCheckpoint"),
        Row(
            method: .post, uri: "/v1/activations",
            body: #"{"deeplink": "mybank://activate?serialNumber=SN1", "dryRun": true}"#, status: 200),
        Row(
            method: .post, uri: "/v1/activations", body: #"{"deeplink": "otherbank://x?serialNumber=SN1"}"#,
            status: 400, code: "deeplink.formatMismatch"),
    ]

    /// A key on a batch is refused, not ignored (a second POST would run again); a key given
    /// twice is named as such; a mismatched key's title speaks of another request.
    @Test func idempotencyKeysAreTakenOnlyWhereTheyHold() async throws {
        let fixture = try await Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { client in
                let batch = try await client.execute(
                    uri: "/v1/activations/batch", method: .post,
                    headers: [.contentType: "text/plain", APIRoutes.idempotencyKey: "k1"],
                    body: ByteBuffer(string: "mybank://activate?serialNumber=SN1\n")
                )
                #expect(
                    batch.status == .badRequest && String(buffer: batch.body).contains("takes no Idempotency-Key"),
                    "\(String(buffer: batch.body))")
                #expect(fixture.sandbox.requests.isEmpty)
                var twice = HTTPFields()
                twice[.contentType] = "application/json"
                twice.append(HTTPField(name: APIRoutes.idempotencyKey, value: "k2"))
                twice.append(HTTPField(name: APIRoutes.idempotencyKey, value: "k3"))
                let doubled = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: twice,
                    body: ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#))
                #expect(
                    doubled.status == .badRequest && String(buffer: doubled.body).contains("given 2 times"),
                    "\(String(buffer: doubled.body))")
                let keyed: HTTPFields = [.contentType: "application/json", APIRoutes.idempotencyKey: "k4"]
                #expect(
                    try await client.execute(
                        uri: "/v1/activations", method: .post, headers: keyed,
                        body: ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1", "dryRun": true}"#)
                    ).status == .ok)
                let other = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: keyed,
                    body: ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN2", "dryRun": true}"#))
                #expect(
                    other.status == .unprocessableContent && !String(buffer: other.body).contains("another deeplink"),
                    "\(String(buffer: other.body))")
                // A member of the wrong type is named, not called "not a JSON object".
                let typed = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1", "dryRun": "yes"}"#))
                #expect(
                    String(buffer: typed.body).contains(#"\"dryRun\" must be true or false"#),
                    "\(String(buffer: typed.body))")
            }
        }
    }

    @Test func everyRouteAnswersItsStatusProblemAndHeaders() async throws {
        let fixture = try await Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { client in
                for row in Self.table {
                    var headers = HTTPFields()
                    if let contentType = row.contentType { headers[.contentType] = contentType }
                    let response = try await client.execute(
                        uri: row.uri, method: row.method, headers: headers,
                        body: row.body.map { ByteBuffer(string: $0) })
                    let text = String(buffer: response.body)
                    #expect(Int(response.status.code) == row.status, "\(row.testDescription): \(text)")
                    if let code = row.code {
                        #expect(response.headers[.contentType] == "application/problem+json", "\(row.testDescription)")
                        if row.method == .head {
                            // A HEAD request's answer has its headers and no body.
                            #expect(response.body.readableBytes == 0, "\(row.testDescription)")
                        } else {
                            let object = try #require(
                                try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                            #expect(object["code"] as? String == code, "\(row.testDescription): \(text)")
                            #expect(
                                object["status"] as? Int == row.status
                                    && object["type"] as? String == "urn:tokenctl:error:\(code)")
                        }
                    } else {
                        #expect(response.headers[.contentType] == "application/json", "\(row.testDescription)")
                    }
                    if let header = row.header {
                        #expect(
                            response.headers[HTTPField.Name(header.name)!] == header.value, "\(row.testDescription)")
                    }
                }
                // Every answer above was counted under its route template; the unknown path as "other".
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(metrics.contains(#"tokenctl_http_requests_total{route="other",status="404"} 1"#), "\(metrics)")
                #expect(
                    metrics.contains(#"tokenctl_http_requests_total{route="/v1/passes/{serialNumber}",status="404"} 2"#)
                )
                #expect(metrics.contains(#"tokenctl_http_requests_total{route="/v1/activations",status="405"} 1"#))
                #expect(metrics.contains(#"tokenctl_http_requests_total{route="/v1/audit",status="405"} 1"#))
                #expect(metrics.contains(#"tokenctl_http_requests_total{route="/v1/activations",status="413"} 1"#))
                #expect(!metrics.contains("SN1") && !metrics.contains("NOPE"))
            }
            #expect(fixture.sandbox.activationRequestCount == 0)
        }
    }

    @Test func aTokenGuardsEveryRouteButTheHealthChecks() async throws {
        let fixture = try await Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served(bearerToken: "s3cret") { client in
                let missing = try await client.execute(uri: "/v1/passes/SN1", method: .get)
                #expect(missing.status == .unauthorized && missing.headers[.wwwAuthenticate] == "Bearer")
                #expect(String(buffer: missing.body).contains(#""code": "service.unauthorized""#))
                #expect(
                    try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer s3cre"])
                        .status == .unauthorized)
                #expect(
                    try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "bearer s3cret"])
                        .status == .ok)
                #expect(try await client.execute(uri: "/livez", method: .get).status == .ok)
                #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
                // A path the API does not have is not revealed to a caller without the token.
                #expect(try await client.execute(uri: "/nowhere", method: .get).status == .unauthorized)
                #expect(
                    try await client.execute(uri: "/nowhere", method: .get, headers: [.authorization: "Bearer s3cret"])
                        .status == .notFound)
                // Every request but the health checks presents the token, a wrong method included;
                // with it, the method is named. A wrong method on a health check needs none.
                #expect(try await client.execute(uri: "/v1/activations", method: .get).status == .unauthorized)
                #expect(
                    try await client.execute(
                        uri: "/v1/activations", method: .get, headers: [.authorization: "Bearer s3cret"]
                    ).status == .methodNotAllowed)
                #expect(
                    try await client.execute(
                        uri: "/v1/audit", method: HTTPRequest.Method("QUERY")!,
                        headers: [.authorization: "Bearer s3cret"]
                    ).status == .methodNotAllowed)
                #expect(try await client.execute(uri: "/livez", method: .head).status == .methodNotAllowed)
                let body = ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#)
                #expect(
                    try await client.execute(
                        uri: "/v1/activations", method: .post, headers: [.contentType: "application/json"], body: body
                    ).status == .unauthorized)
            }
            #expect(fixture.sandbox.activationRequestCount == 0)
        }
    }

    /// An activation, a replayed Idempotency-Key, and a streamed batch.
    @Test func activationsKeysAndBatchesAreServed() async throws {
        let fixture = try await Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            try await fixture.served { client in
                let body = ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#)
                let headers: HTTPFields = [.contentType: "application/json", HTTPField.Name("Idempotency-Key")!: "k-1"]
                let first = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: headers, body: body)
                #expect(
                    first.status == .ok && String(buffer: first.body).contains(#""outcome": "APPROVED""#),
                    "\(String(buffer: first.body))")
                let again = try await client.execute(
                    uri: "/v1/activations", method: .post, headers: headers, body: body)
                #expect(again.status == .ok && again.headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
                #expect(String(buffer: again.body) == String(buffer: first.body))

                let batch = ByteBuffer(string: "mybank://activate?serialNumber=SN2\n\nnot a deeplink\n")
                let streamed = try await client.execute(
                    uri: "/v1/activations/batch", method: .post, headers: [.contentType: "text/plain"], body: batch)
                #expect(streamed.status == .ok && streamed.headers[.contentType] == "application/x-ndjson")
                let lines = String(buffer: streamed.body).split(separator: "\n").map {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                #expect(lines.map { $0?["line"] as? Int } == [1, 3])
                #expect(lines.first??["outcome"] as? String == "APPROVED", "\(String(buffer: streamed.body))")
                #expect(
                    lines.last??["outcome"] as? String == "ERROR"
                        && (lines.last??["error"] as? [String: Any])?["code"] as? String == "deeplink.invalidCharacter",
                    "\(String(buffer: streamed.body))")
            }
            #expect(fixture.sandbox.activationRequestCount == 2)
        }
    }

    /// The transparency log's routes on checkpoints the service signed: the newest
    /// checkpoint as text, a leaf's tlog-proof that verifies against it with the log's key, a
    /// consistency proof between two signed sizes.
    @Test func theAuditLogsProofsVerify() async throws {
        let fixture = try await Fixture.start()
        try await withTeardown({ try await fixture.stop() }) {
            let signer = try NoteSigner.generate(name: "bank.example/tokenctl-audit")
            try await fixture.served { client in
                func activate(_ serial: String) async throws {
                    let response = try await client.execute(
                        uri: "/v1/activations", method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#))
                    #expect(response.status == .ok)
                }
                func sign() async throws -> Checkpoint {
                    try await TransparencyLog.checkpoint(in: fixture.service.store, origin: signer.name, signer: signer)
                        .checkpoint
                }
                try await activate("SN1")
                let first = try await sign()
                try await activate("SN2")
                let second = try await sign()
                #expect(first.size == 2 && second.size == 4)

                let newest = try await client.execute(uri: "/v1/audit/checkpoint", method: .get)
                #expect(newest.status == .ok)
                #expect(newest.headers[.contentType] == "text/plain; charset=utf-8")
                let note = try SignedNote.open(Array(String(buffer: newest.body).utf8), verifiers: [signer.verifier])
                #expect(Checkpoint(text: note.text) == second)

                let leaf = try await AuditTree(store: fixture.service.store).leaf(1).hash
                for uri in ["/v1/audit/proof?index=1", "/v1/audit/proof?index=1&size=2"] {
                    let answer = try await client.execute(uri: uri, method: .get)
                    #expect(answer.status == .ok, "\(uri)")
                    let proof = try TLogProof(text: String(buffer: answer.body))
                    let (checkpoint, _) = try proof.verify(leafHash: leaf, log: signer.verifier)
                    #expect(checkpoint == (uri.hasSuffix("size=2") ? first : second))
                }
                #expect(try await client.execute(uri: "/v1/audit/proof?index=4", method: .get).status == .notFound)

                let consistency = try await client.execute(uri: "/v1/audit/consistency?from=2&to=4", method: .get)
                #expect(consistency.status == .ok)
                let hashes = String(buffer: consistency.body).split(separator: "\n").map {
                    Array(Data(base64Encoded: String($0))!)
                }
                #expect(throws: Never.self) {
                    try MerkleProof.verifyConsistency(
                        size1: 2, size2: 4, root1: first.rootHash, root2: second.rootHash, proof: hashes)
                }
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                #expect(
                    metrics.contains(#"tokenctl_http_requests_total{route="/v1/audit/proof",status="200"} 2"#),
                    "\(metrics)"
                )
            }
        }
    }
}
