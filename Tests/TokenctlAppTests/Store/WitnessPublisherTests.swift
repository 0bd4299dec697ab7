import Foundation
import HTTPTransport
import Sandbox
import TestSupport
import Testing
import TransparencyLog
import WalletModel

@testable import TokenActivation

/// The publisher against the sandbox's witness when another process of the same log
/// published a newer checkpoint first (a fleet's hosts, an operator's timer beside the
/// service): the witness holds a larger tree than the checkpoint sent, which is this log's
/// own, so the newer checkpoint is published, not a refusal.
@Suite struct WitnessPublisherTests {
    let directory = TemporaryDirectory()

    @Test(arguments: Driver.allCases)
    func aNewerCheckpointPublishedFirstSupersedesAnOlderOne(_ driver: Driver) async throws {
        let log = try NoteSigner.generate(name: "bank.example/tokenctl-audit")
        let witness = WitnessServer(logs: [try #require(TrustedLogKey(verifierKey: log.verifier.verifierKey))])
        let sandbox = try await TMPSandbox.start(port: 0, witness: witness)
        try await withTeardown({ try await sandbox.shutdown() }) {
            let store = try await driver.make(in: directory)
            let (older, newer) = try await store.with { store in
                try await AuditTreeContractTests.appendAttempts(10, to: store)
                let older = try await TransparencyLog.checkpoint(in: store, origin: log.name, signer: log)
                try await AuditTreeContractTests.appendAttempts(5, to: store, from: 11)
                let newer = try await TransparencyLog.checkpoint(in: store, origin: log.name, signer: log)
                return (
                    StoredCheckpoint(size: Int64(older.checkpoint.size), note: older.note),
                    StoredCheckpoint(size: Int64(newer.checkpoint.size), note: newer.note)
                )
            }
            // The newer one reaches the witness first, as another process would send it.
            let transport = try CurlTransport(options: CurlTransportOptions())
            let first = try await transport.send(
                HTTPRequest(
                    method: "POST", url: sandbox.baseURL + WitnessExchange.path, headers: [],
                    body: WitnessExchange.request(oldSize: 0, proof: [], note: newer.note)
                ))
            #expect(first.status == 200)

            let requests = RequestLog()
            let publisher = WitnessPublisher(
                witnesses: [
                    Witness(url: sandbox.baseURL, verifier: try Cosignature.Verifier(verifierKey: witness.verifierKey))
                ],
                transport: transport, onRequest: { requests.append($0) }
            )
            let outcomes = try await store.with { store in await publisher.publish(older, in: store) }
            let cosigned = try outcomes[0].result.get()
            #expect(cosigned.size == 30 && older.size == 20)
            #expect(requests.all == [.conflict, .cosigned])
            #expect(witness.cosignedSize(origin: log.name) == 30)
            let key = witness.verifierKey
            #expect(
                try await store.with { try await $0.latestCosignature(witness: key, origin: log.name) } == cosigned)
        }
    }

    /// A cosignature dated more than five minutes ahead of this host's clock is refused, not
    /// stored: strict verifiers would drop the witness for it.
    @Test func aCosignatureFromTheFutureIsNotStored() throws {
        let witness = Witness(
            url: "https://witness.example",
            verifier: try Cosignature.Verifier(verifierKey: WitnessServer(logs: []).verifierKey))
        let now: UInt64 = 1_800_000_000
        #expect(throws: Never.self) { try WitnessPublisher.checkTime(now + 300, of: witness, now: now) }
        #expect(throws: Never.self) { try WitnessPublisher.checkTime(now - 86_400, of: witness, now: now) }
        #expect(throws: AuditError.self) { try WitnessPublisher.checkTime(now + 301, of: witness, now: now) }
    }
}

private final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [WitnessPublisher.RequestResult] = []

    func append(_ result: WitnessPublisher.RequestResult) { lock.withLock { results.append(result) } }
    var all: [WitnessPublisher.RequestResult] { lock.withLock { results } }
}
