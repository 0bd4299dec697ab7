import Foundation
import TestSupport
import Testing
import TokenctlApp
import WalletModel

/// The intent stores' contract (the onboarding core's records and the service's
/// Idempotency-Keys), every requirement run against both drivers: the SQLite file and a
/// PostgreSQL database on the test server.
@Suite struct StateRecordsContractTests {
    let directory = TemporaryDirectory()

    // MARK: Idempotency-Keys

    /// A key is claimed once: a second claim finds the first's row, its answer once stored;
    /// a release deletes only an unanswered claim; a purge deletes by claim time.
    @Test(arguments: Driver.allCases)
    func anIdempotencyKeyIsClaimedAnsweredReleasedAndPurged(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            let claim = IdempotencyKeyRow(
                key: "k1", deeplinkHash: "hash-1", createdMilliseconds: 1_000, requestID: "request-1",
                serialNumber: "SN1", owner: "host 1 start")
            #expect(try await store.claimIdempotencyKey(claim) == .inserted)
            var second = claim
            second.requestID = "request-2"
            second.deeplinkHash = "hash-2"
            #expect(try await store.claimIdempotencyKey(second) == .held(claim))

            try await store.answerIdempotencyKey("k1", status: 200, body: #"{"outcome": "APPROVED"}"#)
            var answered = claim
            answered.status = 200
            answered.answer = #"{"outcome": "APPROVED"}"#
            #expect(try await store.claimIdempotencyKey(second) == .held(answered))
            // An answered key is never released.
            try await store.releaseIdempotencyKey("k1")
            #expect(try await store.claimIdempotencyKey(second) == .held(answered))

            let unanswered = IdempotencyKeyRow(
                key: "k2", deeplinkHash: "hash-3", createdMilliseconds: 2_000, requestID: nil, serialNumber: nil,
                owner: nil)
            #expect(try await store.claimIdempotencyKey(unanswered) == .inserted)
            try await store.releaseIdempotencyKey("k2")
            #expect(try await store.claimIdempotencyKey(unanswered) == .inserted)

            #expect(try await store.purgeIdempotencyKeys(claimedBefore: 1_500) == 1)
            #expect(try await store.claimIdempotencyKey(claim) == .inserted)
            #expect(try await store.purgeIdempotencyKeys(claimedBefore: 10_000) == 2)
            #expect(try await store.purgeIdempotencyKeys(claimedBefore: 10_000) == 0)
        }
    }

    /// An unanswered claim is taken over by one of the repeats that race for it, and only
    /// while it is the claim they saw; an answered key is never taken over.
    @Test(arguments: Driver.allCases)
    func aStuckClaimIsTakenOverOnceAndAnAnsweredOneNever(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            let claim = IdempotencyKeyRow(
                key: "k1", deeplinkHash: "hash", createdMilliseconds: 1_000, requestID: "request-1",
                serialNumber: "SN1",
                owner: "host 1 start")
            #expect(try await store.claimIdempotencyKey(claim) == .inserted)
            func takeOver(claimedAt: Int64, requestID: String) async throws -> Bool {
                try await store.takeOverIdempotencyKey(
                    "k1", claimedAt: claimedAt, now: 5_000, requestID: requestID, serialNumber: "SN1",
                    owner: "host 2 start")
            }
            #expect(try await takeOver(claimedAt: 1_000, requestID: "request-2"))
            // The claim moved: a repeat that saw the old one loses the race.
            #expect(try await !takeOver(claimedAt: 1_000, requestID: "request-3"))
            let moved = IdempotencyKeyRow(
                key: "k1", deeplinkHash: "hash", createdMilliseconds: 5_000, requestID: "request-2",
                serialNumber: "SN1",
                owner: "host 2 start")
            #expect(try await store.claimIdempotencyKey(claim) == .held(moved))
            try await store.answerIdempotencyKey("k1", status: 200, body: "{}")
            #expect(try await !takeOver(claimedAt: 5_000, requestID: "request-4"))
            #expect(
                try await !store.takeOverIdempotencyKey(
                    "none", claimedAt: 0, now: 1, requestID: "r", serialNumber: nil, owner: "o"))
        }
    }

    // MARK: Onboarding process

    @Test(arguments: Driver.allCases)
    func anOnboardingProcessIsOnePerInstanceAndDeletedOnlyIfStillCurrent(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            #expect(try await store.onboardingProcessID(instanceID: "i1") == nil)
            let process = OnboardingProcessRow(instanceID: "i1", processID: "p1", startedAt: "2026-11-28T10:00:00Z")
            #expect(try await store.insertOnboardingProcess(process))
            #expect(
                try await !store.insertOnboardingProcess(
                    OnboardingProcessRow(instanceID: "i1", processID: "p2", startedAt: "2026-11-28T10:01:00Z")))
            #expect(try await store.onboardingProcessID(instanceID: "i1") == "p1")
            #expect(try await store.onboardingProcessID(instanceID: "i2") == nil)
            // Another process id: a concurrent start replaced it, so it stays.
            try await store.deleteOnboardingProcess(instanceID: "i1", processID: "p2")
            #expect(try await store.onboardingProcessID(instanceID: "i1") == "p1")
            try await store.deleteOnboardingProcess(instanceID: "i1", processID: "p1")
            #expect(try await store.onboardingProcessID(instanceID: "i1") == nil)
            #expect(try await store.insertOnboardingProcess(process))
            try await store.deleteOnboardingProcess(instanceID: "i1", processID: nil)
            #expect(try await store.onboardingProcessID(instanceID: "i1") == nil)
        }
    }

    // MARK: Device activation

    @Test(arguments: Driver.allCases)
    func aDeviceActivationKeepsItsKeysCountsSignaturesAndItsToken(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            let activation = Self.activation("i1")
            #expect(try await store.deviceActivation(instanceID: "i1") == nil)
            #expect(try await store.takeSignatureCounter(instanceID: "i1") { $0 } == nil)
            #expect(try await store.insertDeviceActivation(activation))
            var other = Self.activation("i1")
            other.activationID = "another"
            #expect(try await !store.insertDeviceActivation(other))
            #expect(try await store.deviceActivation(instanceID: "i1") == activation)

            // Each signature takes the current counter data and stores the next.
            let first = try await store.takeSignatureCounter(instanceID: "i1") { $0.map { $0 &+ 1 } }
            let second = try await store.takeSignatureCounter(instanceID: "i1") { $0.map { $0 &+ 1 } }
            #expect(first == activation.counterData)
            #expect(second == activation.counterData.map { $0 &+ 1 })
            let counted = try #require(try await store.deviceActivation(instanceID: "i1"))
            #expect(counted.counter == activation.counter + 2)
            #expect(counted.counterData == activation.counterData.map { $0 &+ 2 })

            let token = DeviceTokenRow(id: "token-1", secret: Array(repeating: 7, count: 16), factor: "possession")
            try await store.saveDeviceToken(token, instanceID: "i1")
            #expect(try await store.deviceActivation(instanceID: "i1")?.token == token)
            let replaced = DeviceTokenRow(
                id: "token-2", secret: Array(repeating: 9, count: 16), factor: "possession_knowledge")
            try await store.saveDeviceToken(replaced, instanceID: "i1")
            #expect(try await store.deviceActivation(instanceID: "i1")?.token == replaced)

            #expect(try await store.deleteDeviceActivation(instanceID: "i1"))
            #expect(try await !store.deleteDeviceActivation(instanceID: "i1"))
            #expect(try await store.deviceActivation(instanceID: "i1") == nil)
        }
    }

    // MARK: Identity verification

    @Test(arguments: Driver.allCases)
    func aVerificationRowFollowsItsChanges(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            #expect(try await store.verification(instanceID: "i1") == nil)
            // The document types first: the row is made without a status.
            try await store.changeVerification(instanceID: "i1", .documentTypes("ID_CARD,PASSPORT"), updatedAt: "t1")
            #expect(
                try await store.verification(instanceID: "i1")
                    == VerificationRow(
                        instanceID: "i1", processID: nil, phase: nil, status: nil,
                        documentTypes: "ID_CARD,PASSPORT",
                        updatedAt: "t1"))
            try await store.changeVerification(
                instanceID: "i1",
                .status(
                    processID: "p1", phase: "DOCUMENT_UPLOAD", status: "IN_PROGRESS", clearingDocumentTypes: false),
                updatedAt: "t2")
            #expect(
                try await store.verification(instanceID: "i1")
                    == VerificationRow(
                        instanceID: "i1", processID: "p1", phase: "DOCUMENT_UPLOAD", status: "IN_PROGRESS",
                        documentTypes: "ID_CARD,PASSPORT", updatedAt: "t2"))
            try await store.changeVerification(
                instanceID: "i1",
                .status(processID: "p1", phase: nil, status: "ACCEPTED", clearingDocumentTypes: true),
                updatedAt: "t3")
            #expect(
                try await store.verification(instanceID: "i1")
                    == VerificationRow(
                        instanceID: "i1", processID: "p1", phase: nil, status: "ACCEPTED", documentTypes: nil,
                        updatedAt: "t3"))
            try await store.changeVerification(instanceID: "i1", .statusForgotten, updatedAt: "t4")
            #expect(
                try await store.verification(instanceID: "i1")
                    == VerificationRow(
                        instanceID: "i1", processID: nil, phase: nil, status: nil, documentTypes: nil,
                        updatedAt: "t4"))
            #expect(try await store.verification(instanceID: "i2") == nil)
            try await store.deleteVerification(instanceID: "i1")
            #expect(try await store.verification(instanceID: "i1") == nil)
        }
    }

    // MARK: PIN login

    @Test(arguments: Driver.allCases)
    func aLoginUserIsReplacedAndDeleted(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            #expect(try await store.loginUser(instanceID: "i1") == nil)
            var user = LoginUserRow(
                instanceID: "i1", identity: "user@example.com", deviceName: "host", mpinID: "7b22", regOTT: "ott",
                state: "STARTED_REGISTRATION", secret: "client-secret", discovery: #"{"authorization": "x"}"#,
                failedAttempts: 0, lastLoginAt: nil, lastLoginAnswer: nil, createdAt: "2026-11-28T10:00:00Z")
            try await store.saveLoginUser(user)
            #expect(try await store.loginUser(instanceID: "i1") == user)
            user.state = "REGISTERED"
            user.secret = nil
            user.failedAttempts = 2
            user.lastLoginAt = "2026-11-28T10:05:00Z"
            user.lastLoginAnswer = #"{"status": "OK"}"#
            try await store.saveLoginUser(user)
            #expect(try await store.loginUser(instanceID: "i1") == user)
            #expect(try await store.loginUser(instanceID: "i2") == nil)
            #expect(try await store.deleteLoginUser(instanceID: "i1"))
            #expect(try await !store.deleteLoginUser(instanceID: "i1"))
            #expect(try await store.loginUser(instanceID: "i1") == nil)
        }
    }

    // MARK: Snapshot

    /// Every onboarding row is in the snapshot a copy moves; Idempotency-Keys are not.
    @Test(arguments: Driver.allCases)
    func theSnapshotHoldsEveryOnboardingRowAndNoKey(_ driver: Driver) async throws {
        try await driver.make(in: directory).with { store in
            _ = try await store.claimIdempotencyKey(
                IdempotencyKeyRow(
                    key: "k", deeplinkHash: "h", createdMilliseconds: 1, requestID: nil, serialNumber: nil, owner: nil))
            #expect(try await store.insertDeviceActivation(Self.activation("i1")))
            #expect(
                try await store.insertOnboardingProcess(
                    OnboardingProcessRow(instanceID: "i1", processID: "p1", startedAt: "t")))
            try await store.changeVerification(instanceID: "i1", .documentTypes("PASSPORT"), updatedAt: "t")
            let snapshot = try await store.stateSnapshot()
            #expect(snapshot.deviceActivations.map(\.instanceID) == ["i1"])
            #expect(snapshot.onboardingProcesses.map(\.processID) == ["p1"])
            #expect(snapshot.verifications.map(\.documentTypes) == ["PASSPORT"])
            #expect(snapshot.loginUsers.isEmpty)
        }
    }

    static func activation(_ instanceID: String) -> DeviceActivationRow {
        DeviceActivationRow(
            instanceID: instanceID, activationID: "activation-\(instanceID)", name: "host",
            createdAt: "2026-11-28T10:00:00Z",
            serverPublicKey: Array(repeating: 2, count: 65), devicePublicKey: Array(repeating: 3, count: 65),
            devicePrivateKeyVault: Array(repeating: 4, count: 48), possessionKey: Array(repeating: 5, count: 16),
            transportKey: Array(repeating: 6, count: 16), knowledgeKeyEncrypted: Array(repeating: 7, count: 32),
            knowledgeKeySalt: Array(repeating: 8, count: 16), knowledgeKeyIterations: 10_000,
            counterData: Array(repeating: 1, count: 16), counter: 0, token: nil)
    }
}
