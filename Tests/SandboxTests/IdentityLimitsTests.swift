import Foundation
import Testing
import ZIPFoundation

@testable import Sandbox

/// The simulated enrollment server's document upload and limits, as values.
@Suite struct IdentityLimitsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A process in verification, its flag `VERIFICATION_PENDING`.
    func verifying() -> OnboardingProcess {
        var process = OnboardingProcess(id: "p", identification: "{}", otp: "11111111", now: now)
        _ = process.verify(otp: "11111111", activationID: "a", now: now, skipVerification: false)
        return process
    }

    static func zip(_ entries: [String: String]) throws -> String {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, text) in entries.sorted(by: { $0.key < $1.key }) {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none)
            { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data).base64EncodedString()
    }

    static func request(
        _ entries: [String: String], documents: [(String, String, String?)], resubmit: Bool = false
    ) throws -> [String: Any] {
        [
            "processId": "p", "data": try zip(entries), "resubmit": resubmit,
            "documents": documents.map { name, type, original -> [String: Any] in
                var item: [String: Any] = ["filename": name, "type": type, "side": "FRONT"]
                if let original { item["originalDocumentId"] = original }
                return item
            },
        ]
    }

    @Test(arguments: [
        ("plain image", "VERIFICATION_PENDING", false, false),
        ("SBXREJECT", "REJECTED", false, false),
        ("SBXFAIL", "FAILED", false, false),
        ("SBXENDSTATE", "VERIFICATION_PENDING", true, false),
        ("SBXPRESENCEFAIL", "VERIFICATION_PENDING", false, true),
    ])
    func aMarkerInTheImageDecides(content: String, status: String, endstate: Bool, presence: Bool) throws {
        let read = try DocumentUpload.read(
            try Self.request(
                ["passport_front.jpg": "jpeg \(content) jpeg"], documents: [("passport_front.jpg", "PASSPORT", nil)]),
            into: IdentityVerification(now: now)
        ) { "id" }
        let document = try #require(read.documents.first)
        #expect(document.status == status)
        #expect(document.errors.isEmpty == (status == "VERIFICATION_PENDING"))
        #expect(document.endstate == endstate)
        #expect(document.failsPresenceCheck == presence)
    }

    @Test func aMissingEntryFailsItsDocumentAndResubmitIsAllOrNone() throws {
        var verification = IdentityVerification(now: now)
        let first = try DocumentUpload.read(
            try Self.request(["a.jpg": "x"], documents: [("a.jpg", "ID_CARD", nil), ("b.jpg", "ID_CARD", nil)]),
            into: verification
        ) { UUID().uuidString }
        #expect(first.documents.map(\.status) == ["VERIFICATION_PENDING", "FAILED"])
        verification.submit(first.documents, replacing: [])
        let original = first.documents[0].id

        let refusals: [(String, [String: Any])] = [
            (
                "a mix",
                try Self.request(
                    ["a.jpg": "x", "b.jpg": "y"],
                    documents: [("a.jpg", "ID_CARD", original), ("b.jpg", "ID_CARD", nil)], resubmit: true)
            ),
            (
                "originals without resubmit",
                try Self.request(["a.jpg": "x"], documents: [("a.jpg", "ID_CARD", original)])
            ),
            (
                "an unknown original",
                try Self.request(["a.jpg": "x"], documents: [("a.jpg", "ID_CARD", "nope")], resubmit: true)
            ),
            (
                "not a ZIP",
                [
                    "processId": "p", "data": Data("not a zip".utf8).base64EncodedString(), "resubmit": false,
                    "documents": [["filename": "a.jpg", "type": "ID_CARD"]],
                ]
            ),
        ]
        for (what, object) in refusals {
            #expect(throws: DocumentUpload.Refusal.self, "\(what)") {
                try DocumentUpload.read(object, into: verification) { "id" }
            }
        }
        let resubmit = try DocumentUpload.read(
            try Self.request(["a.jpg": "x"], documents: [("a.jpg", "ID_CARD", original)], resubmit: true),
            into: verification
        ) { "new" }
        #expect(resubmit.originals == [original])
    }

    @Test func theErrorScoreAndTheVerificationCountFailTheProcess() throws {
        var process = verifying()
        var answers: [String] = []
        for _ in 0..<5 {
            guard case .ok = process.initVerification(now: now) else {
                Issue.record("init refused")
                return
            }
            answers.append(describe(process.cleanupVerification()))
        }
        // Four cleanups score 12 and go back to VERIFICATION_PENDING; the fifth verification ends the process.
        #expect(answers == ["ok", "ok", "ok", "ok", "429 ONBOARDING_PROCESS_LIMIT_REACHED"])
        #expect(process.status == .failed)
        #expect(process.errorScore == 15)

        var scored = verifying()
        _ = scored.initVerification(now: now)
        let rejected = try Self.request(["a.jpg": "SBXREJECT"], documents: [("a.jpg", "PASSPORT", nil)])
        var results: [String] = []
        for _ in 0..<6 {
            results.append(describe(scored.submitDocuments(rejected)))
        }
        // Each rejected image scores 2; the sixth spent document resets the verification (+3).
        #expect(results == ["ok", "ok", "ok", "ok", "ok", "429 IDENTITY_VERIFICATION_LIMIT_REACHED"])
        #expect(scored.errorScore == 15)
        #expect(scored.identityPair.status == "NOT_INITIALIZED")
        _ = scored.initVerification(now: now)
        #expect(describe(scored.submitDocuments(rejected)) == "429 ONBOARDING_PROCESS_LIMIT_REACHED")
        #expect(scored.status == .failed)
    }

    @Test func theSixthPresenceCheckFailsTheProcess() {
        var process = verifying()
        _ = process.initVerification(now: now)
        process.verification?.submit(
            [
                IdentityVerification.Document(
                    id: "f", filename: "f", type: "ID_CARD", side: "FRONT", status: "VERIFICATION_PENDING", errors: [],
                    endstate: false),
                IdentityVerification.Document(
                    id: "b", filename: "b", type: "ID_CARD", side: "BACK", status: "VERIFICATION_PENDING", errors: [],
                    endstate: false),
                IdentityVerification.Document(
                    id: "p", filename: "p", type: "PASSPORT", side: "FRONT", status: "VERIFICATION_PENDING", errors: [],
                    endstate: false),
            ], replacing: [])
        _ = process.advanceVerification(now: now, options: OnboardingOptions())
        let answers = (0..<6).map { _ in describe(process.initPresenceCheck()) }
        #expect(answers == ["ok", "ok", "ok", "ok", "ok", "429 PRESENCE_CHECK_LIMIT_REACHED"])
        #expect(process.status == .failed)
        #expect(process.identityPair.phase == "COMPLETED")
    }

    func describe(_ answer: OnboardingServer.Answer) -> String {
        switch answer {
        case .ok: "ok"
        case .error(let status, let code, _): "\(status) \(code)"
        }
    }
}
