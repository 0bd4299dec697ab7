import ErrorCodes
import Foundation
import HTTPTransport
import Logging
import Synchronization
import Testing
import TokenctlApp
import TokenctlConfiguration
import WalletModel

@testable import TokenActivation

/// The executor around the machine, on a real SQLite file and the transport double:
/// what is sent, what is written, and that backoffs are asked of the injected sleep.
struct ActivatorTests {
    let directory = TemporaryDirectory()

    func settings() -> Settings {
        var settings = Settings.builtIn(environment: [:])
        settings.database = .init(path: directory.file("wallet.sqlite"))
        settings.tmp.baseURL = "https://tmp.example.com/prefix/"
        return settings
    }

    /// Sleeps asked for, never slept.
    final class Sleeps: Sendable {
        private let asked = Mutex<[Duration]>([])
        var durations: [Duration] { asked.withLock { $0 } }
        func record(_ duration: Duration) { asked.withLock { $0.append(duration) } }
    }

    /// An activator on `transport` whose sleeps are recorded, never slept.
    func activator(_ transport: ClosureTransport, slept: Sleeps, settings: Settings? = nil) -> Activator {
        Activator(
            settings: settings ?? self.settings(), environment: [:], transports: .always(transport),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), sleep: { slept.record($0) }
        )
    }

    @Test func aRequestThatNeverLeftIsTriedAgainAfterTheConfiguredBackoffs() async throws {
        _ = try await Wallet(settings: settings()).add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL00000001"))
        let transport = ClosureTransport { _, number throws(TransportError) in
            guard number == 2 else { throw TransportError(.connectionRefused, wasSent: false, detail: "refused") }
            return HTTPResponse(status: 200, body: Array(#"{"issuerMobileAppAuthResponse":"APPROVED"}"#.utf8))
        }
        let slept = Sleeps()
        let result = await activator(transport, slept: slept).activate(deeplink: "mybank://activate?serialNumber=SN1")

        #expect(result.outcome == Outcome.approved)
        #expect(slept.durations == [.milliseconds(100), .milliseconds(300)])
        #expect(transport.requests.count == 3)
        let request = try #require(transport.requests.first)
        #expect(request.url == "https://tmp.example.com/prefix/issuer/push-provisioning/tokens/activations")
        #expect(request.body == Array(#"{"tokenUniqueReference": "DAPL00000001"}"#.utf8))
        #expect(request.headers.first { $0.name == "X-Request-ID" }?.value == result.requestID)
        #expect(request.headers.first { $0.name == "Authorization" } == nil)
        await #expect(
            try Wallet(settings: settings()).show(PassQuery(serialNumber: "SN1")).map(\.state) == [.activated])
        var entries: [AuditEntry] = []
        try await Audit(settings: settings()).forEach(AuditFilter()) { entries.append($0) }
        #expect(entries.map(\.outcome) == ["APPROVED"])
        #expect(entries.first?.id == result.auditID)
    }

    /// Eight workers on their own threads: results come out in input order, each pass gets
    /// one request, blank and bad lines are settled without a worker, and the group commit
    /// shares transactions (two committed steps per activation, fewer transactions).
    @Test func aBatchOnWorkerThreadsKeepsOrderAndSharesCommits() async throws {
        let lines = 400
        let passes = (1...lines).map { "SN\($0),DAPL\(String(format: "%08d", $0))" }.joined(separator: "\n")
        let csv = directory.file("passes.csv")
        try "serialNumber,deviceAccountIdentifier\n\(passes)\n".write(toFile: csv, atomically: true, encoding: .utf8)
        _ = try await Wallet(settings: settings()).importRecords(from: .file(csv))
        var input = (1...lines).map { "mybank://activate?serialNumber=SN\($0)" }
        input.insert("", at: 10)
        input.insert("not a deeplink", at: 200)
        let batch = directory.file("batch.txt")
        try (input.joined(separator: "\n") + "\n").write(toFile: batch, atomically: true, encoding: .utf8)
        let transport = ClosureTransport { _, _ throws(TransportError) in
            HTTPResponse(status: 200, body: Array(#"{"issuerMobileAppAuthResponse":"APPROVED"}"#.utf8))
        }

        var emitted: [Int] = []
        let summary = try await activator(transport, slept: Sleeps()).activateBatch(from: .file(batch), concurrency: 8)
        { line, _ in
            emitted.append(line)
        }

        #expect(emitted == (1...(lines + 2)).filter { $0 != 11 })
        #expect(summary.lines == lines + 1)
        #expect(summary.outcomes[.approved] == lines)
        #expect(summary.outcomes[.error] == 1 && summary.errors.values.reduce(0, +) == 1)
        #expect(transport.requests.count == lines)
        #expect(Set(transport.requests.map(\.body)).count == lines)
        #expect(summary.committedSteps == 2 * lines)
        #expect(summary.transactions < summary.committedSteps)
        let (rows, broken) = try await Audit(settings: settings()).verify()
        #expect(rows == 2 * lines && broken == nil)
    }

    @Test func requestIDsAreVersion4UUIDs() throws {
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        let ids = (0..<200).map { _ in Activator.makeRequestID() }
        for id in ids { #expect(id.wholeMatch(of: pattern) != nil, "\(id)") }
        #expect(Set(ids).count == ids.count)
    }

    @Test func aRequestThatLeftIsNeverSentAgain() async throws {
        _ = try await Wallet(settings: settings()).add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL00000001"))
        let transport = ClosureTransport { _, _ throws(TransportError) in
            throw TransportError(.timeout, wasSent: true, detail: "no answer")
        }
        let slept = Sleeps()
        let result = await activator(transport, slept: slept).activate(deeplink: "mybank://activate?serialNumber=SN1")
        #expect(result.outcome == Outcome.unknown)
        #expect(result.error?.code == .tmpTimeout)
        #expect(transport.requests.count == 1)
        #expect(slept.durations.isEmpty)
        // The pass is activatable again: a new run is an explicit retry.
        await #expect(
            try Wallet(settings: settings()).show(PassQuery(serialNumber: "SN1")).map(\.state) == [.requiresActivation])
    }

    @Test func aConfigurationRefusedBeforeSendingIsAuditedAndSendsNothing() async throws {
        _ = try await Wallet(settings: settings()).add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL00000001"))
        var insecure = settings()
        insecure.tmp.baseURL = "http://tmp.example.com"
        let transport = ClosureTransport(status: 200, json: #"{"issuerMobileAppAuthResponse":"APPROVED"}"#)
        let result = await activator(transport, slept: Sleeps(), settings: insecure).activate(
            deeplink: "mybank://activate?serialNumber=SN1")
        #expect(result.error?.code == .configInsecureURL)
        #expect(result.exitStatus == ErrorCodes.ExitStatus.configuration)
        #expect(transport.requests.isEmpty)
        var entries: [AuditEntry] = []
        try await Audit(settings: settings()).forEach(AuditFilter()) { entries.append($0) }
        #expect(entries.map(\.errorCode) == ["config.insecureURL"])
    }

    @Test func aDryRunSendsAndWritesNothing() async throws {
        _ = try await Wallet(settings: settings()).add(
            PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL00000001"))
        let transport = ClosureTransport(status: 200, json: #"{"issuerMobileAppAuthResponse":"APPROVED"}"#)
        let result = await activator(transport, slept: Sleeps()).activate(
            deeplink: "mybank://activate?serialNumber=SN1", dryRun: true)
        #expect(result.outcome == Outcome.dryRun)
        #expect(result.wouldSendTo == "https://tmp.example.com/prefix/issuer/push-provisioning/tokens/activations")
        #expect(transport.requests.isEmpty)
        var entries: [AuditEntry] = []
        try await Audit(settings: settings()).forEach(AuditFilter()) { entries.append($0) }
        #expect(entries.isEmpty)
    }
}
