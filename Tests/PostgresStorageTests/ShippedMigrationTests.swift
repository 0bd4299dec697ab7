import Crypto
import Foundation
import Testing

@testable import PostgresStorage

/// A shipped migration's text never changes: a database migrated by an earlier tokenctl has
/// run exactly that text, and a fleet's hosts must agree on what each version means. The
/// SHA-256 of each migration's statements, as shipped; a new migration appends its line.
@Suite struct ShippedMigrationTests {
    static let shipped: [(name: String, sha256: String)] = [
        ("v1-wallet-and-audit", "90ffa7533d445d42c15b0088e35e62fd91eb6589d18f7d6acfa4def7f9408d31"),
        ("v2-onboarding-state", "6b7e5705d272fef5c23b69247cb00e2e6e04b9420cd152c8e627fb27f6cde153"),
        ("v3-idempotency-keys", "9f7989919d3e08258c28841009ff88e234d657050bc9d099e641115b76ece9f9"),
        ("v4-one-call-per-group", "57347c30ba96d79481961c66885c488720f1b9503a73c87388dab413ae838e31"),
        ("v5-idempotency-attempts", "a0fefd5fb62e5219c5dea3ca8361c524abe537e01cc64ddbba70f00617997f78"),
        ("v6-step-answer-by-name", "7a1daf7fef920e2671bfea72a3456a9c3a02070a23b17e417a1f2d88084051a4"),
        ("v7-transparency-log", "1c9a4a80fa77b6f544724b52083f1f3e4b24c8383d8a2b77f40a287122094019"),
        ("v8-witness-cosignatures", "c4ef16062479947b9b75219921f72aa0d7af2eb2db024b789b6a139885abd530"),
        ("v9-checkpoints-by-log", "29d18fc9cc19a8665de9c16f9945e561d73b41d300685ff9d7d85fc3cc844a48"),
    ]

    @Test func everyShippedMigrationKeepsItsText() {
        let current = PostgresSchema.migrations.map { migration in
            (migration.name, Self.hex(SHA256.hash(data: Array(migration.statements.joined(separator: "\n;\n").utf8))))
        }
        #expect(current.count >= Self.shipped.count)
        for (index, (name, sha256)) in Self.shipped.enumerated() where index < current.count {
            #expect(current[index].0 == name, "migration \(index + 1) was renamed")
            #expect(current[index].1 == sha256, "migration \(name) changed its text: \(current[index].1)")
        }
        let unrecorded = current.dropFirst(Self.shipped.count).map { "(\"\($0.0)\", \"\($0.1)\")" }
        #expect(unrecorded.isEmpty, "record the new migrations: \(unrecorded.joined(separator: ", "))")
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
