import ErrorCodes
import HTTPTransport
import TestSupport
import Testing
import WalletModel

@testable import TokenActivation

/// Every decision of an activation attempt, on the machine alone: no database, no
/// network, no clock. A scripted world answers the machine's actions.
struct ActivationMachineTests {
    typealias OpenAttempt = ActivationMachine.OpenAttempt

    /// What the executor would find and what TMP would answer.
    struct World: Sendable, CustomTestStringConvertible {
        var name: String
        var records: [PassRecord] = [waiting]
        var open: OpenAttempt? = nil
        var userCheck: ActivationError? = nil
        var answers: [Result<HTTPResponse, TransportError>] = [.success(json(200, "APPROVED"))]
        var testDescription: String { name }
    }

    /// What came out: the actions in order and the printed result.
    struct Run {
        var actions: [ActivationMachine.Action] = []
        var result = ActivationResult(outcome: .error)
        var sends: Int { actions.filter { if case .send = $0 { true } else { false } }.count }
        var backoffs: [Duration] {
            actions.compactMap { if case .send(_, let after) = $0, after > .zero { after } else { nil } }
        }
        var finish: ActivationMachine.Finish? {
            actions.lazy.compactMap { if case .writeFinished(let f) = $0 { f } else { nil } }.first
        }
        var stop: ActivationMachine.Stop? {
            actions.lazy.compactMap { if case .writeStopped(let s) = $0 { s } else { nil } }.first
        }
        var start: ActivationMachine.Start? {
            actions.lazy.compactMap { if case .writeStarted(let s) = $0 { s } else { nil } }.first
        }
    }

    static let waiting = PassRecord(serialNumber: "SN1", deviceAccountIdentifier: "DAPL0001", device: "iPhone")
    static let retry = TMPSettings.Retry(attempts: 3, backoffMilliseconds: [100, 300])
    static let deeplink = Deeplink(
        format: DeeplinkFormat("mybank://activate")!, serialNumber: "SN1", passTypeIdentifier: nil, action: nil)

    static func json(_ status: Int, _ value: String, extra: String = "") -> HTTPResponse {
        HTTPResponse(status: status, body: Array(#"{"issuerMobileAppAuthResponse":"\#(value)"\#(extra)}"#.utf8))
    }

    static func state(_ state: PassState, device: String? = "iPhone", reference: String = "DAPL0001") -> PassRecord {
        PassRecord(serialNumber: "SN1", deviceAccountIdentifier: reference, state: state, device: device)
    }

    static func refused(_ kind: TransportError.Kind, sent: Bool = false) -> Result<HTTPResponse, TransportError> {
        .failure(TransportError(kind, wasSent: sent, detail: "scripted"))
    }

    /// Plays the executor: answers each action from `world` until the machine stops.
    static func drive(_ world: World, dryRun: Bool = false) -> Run {
        var machine = ActivationMachine(
            requestID: "req-1", device: nil, retry: retry, dryRunEndpoint: dryRun ? "http://tmp/x" : nil)
        var run = Run()
        var answers = world.answers[...]
        var action = machine.handle(.parsed(.success(deeplink)))
        for _ in 0..<20 {
            run.actions.append(action)
            switch action {
            case .checkUser: action = machine.handle(.userCheckAnswered(world.userCheck))
            case .resolveRecords:
                action = machine.handle(.recordsResolved(world.records, openAttempt: world.open, attemptID: 7))
            case .writeStarted: action = machine.handle(.startedCommitted)
            case .writeStopped, .writeFinished: action = machine.handle(.finishCommitted)
            case .send: action = machine.handle(.tmpAnswered(answers.popFirst() ?? refused(.other)))
            case .stop(let result):
                run.result = result
                return run
            }
        }
        Issue.record("the machine did not stop")
        return run
    }

    // MARK: Pass resolution and the in-flight guard: nothing is sent, the attempt is audited.

    static let notSent: [(World, Outcome, String?)] = [
        (World(name: "no record", records: []), .error, "wallet.notFound"),
        (
            World(
                name: "two waiting records",
                records: [
                    state(.requiresActivation), state(.requiresActivation, device: "Watch", reference: "DAPL0002"),
                ]), .error, "wallet.ambiguous"
        ),
        (World(name: "suspended", records: [state(.suspended)]), .error, "wallet.notActivatable"),
        (World(name: "deactivated", records: [state(.deactivated)]), .error, "wallet.notActivatable"),
        (World(name: "already activated", records: [state(.activated)]), .alreadyActivated, nil),
        (
            World(
                name: "a waiting pass beside an activated one",
                records: [state(.activated, device: "Watch"), state(.suspended)]), .alreadyActivated, nil
        ),
        (
            World(
                name: "in flight in a live process", records: [state(.activating)],
                open: OpenAttempt(attemptID: 3, requestID: "r", deeplinkHash: "h", ownerIsAlive: true)), .error,
            "activation.inProgress"
        ),
        (
            World(
                name: "user activation not finished",
                userCheck: ActivationError(code: .userActivationRequired, message: "m")), .error,
            "user.activationRequired"
        ),
        (
            World(name: "TMP not configured", userCheck: ActivationError(code: .configSecretMissing, message: "m")),
            .error, "config.secretMissing"
        ),
        (
            World(
                name: "pass refusal before the user check", records: [],
                userCheck: ActivationError(code: .userActivationRequired, message: "m")), .error, "wallet.notFound"
        ),
    ]

    @Test(arguments: notSent)
    func nothingIsSentAndTheAttemptIsAuditedWhole(world: World, outcome: Outcome, code: String?) {
        let run = Self.drive(world)
        #expect(run.sends == 0)
        #expect(run.start == nil)
        let stop = run.stop
        #expect(stop?.outcome == outcome)
        #expect(stop?.error?.code.rawValue == code)
        #expect(run.result.outcome == outcome)
        #expect(run.result.error?.code.rawValue == code)
        #expect(run.result.auditID == 7)
        #expect(run.result.requestID == "req-1")
    }

    // MARK: Interrupted owners

    @Test func anAttemptLeftByADeadProcessIsClosedThenTheRunProceeds() {
        let open = OpenAttempt(attemptID: 3, requestID: "old", deeplinkHash: "h", ownerIsAlive: false)
        let run = Self.drive(World(name: "interrupted", records: [Self.state(.activating)], open: open))
        #expect(run.start?.closing == open)
        #expect(run.sends == 1)
        #expect(run.result.outcome == .approved)
        #expect(run.result.warnings.count == 1)
        #expect(run.result.warnings.first?.contains("activation.interrupted") == true)
    }

    @Test func aPassMarkedActivatingWithoutAnOpenAttemptIsWaitingForActivation() {
        let run = Self.drive(World(name: "no open attempt", records: [Self.state(.activating)]))
        #expect(run.start?.closing == nil)
        #expect(run.result.outcome == .approved)
        #expect(
            run.result.warnings == [
                "the pass was marked activating without an open attempt; treating it as waiting for activation"
            ])
    }

    @Test func anInterruptedAttemptIsClosedEvenWhenTheUserCheckStopsTheRun() {
        let open = OpenAttempt(attemptID: 3, requestID: "old", deeplinkHash: "h", ownerIsAlive: false)
        let run = Self.drive(
            World(
                name: "closed, then stopped", records: [Self.state(.activating)], open: open,
                userCheck: ActivationError(code: .userActivationRequired, message: "m")))
        #expect(run.stop?.closing == open)
        #expect(run.sends == 0)
    }

    // MARK: TMP's answer, retries and the pass's next state

    static let answered: [(World, Outcome, String?, PassState, Int, [Duration])] = [
        (World(name: "APPROVED"), .approved, nil, .activated, 1, []),
        (
            World(name: "DECLINED", answers: [.success(json(200, "DECLINED"))]), .declined, nil, .requiresActivation, 1,
            []
        ),
        (World(name: "FAILED", answers: [.success(json(201, "FAILED"))]), .failed, nil, .requiresActivation, 1, []),
        (
            World(name: "lower-case status", answers: [.success(json(200, "approved"))]), .error, "tmp.unknownStatus",
            .requiresActivation, 1, []
        ),
        (
            World(name: "empty body", answers: [.success(HTTPResponse(status: 200, body: []))]), .error,
            "tmp.invalidBody", .requiresActivation, 1, []
        ),
        (
            World(name: "HTTP 500", answers: [.success(json(500, "APPROVED"))]), .unknown, "tmp.serverError",
            .requiresActivation, 1, []
        ),
        (
            World(name: "HTTP 503", answers: [.success(HTTPResponse(status: 503, body: []))]), .unknown,
            "tmp.serverError", .requiresActivation, 1, []
        ),
        (
            World(name: "redirect", answers: [.success(HTTPResponse(status: 302, body: []))]), .error, "tmp.redirect",
            .requiresActivation, 1, []
        ),
        (
            World(name: "HTTP 404", answers: [.success(HTTPResponse(status: 404, body: []))]), .error,
            "tmp.unexpectedStatus", .requiresActivation, 1, []
        ),
        (
            World(
                name: "refused three times",
                answers: [refused(.connectionRefused), refused(.connectionRefused), refused(.connectionRefused)]),
            .error, "tmp.connectionRefused", .requiresActivation, 3, [.milliseconds(100), .milliseconds(300)]
        ),
        (
            World(
                name: "DNS failure, then approved", answers: [refused(.dnsFailure), .success(json(200, "APPROVED"))]),
            .approved, nil, .activated, 2, [.milliseconds(100)]
        ),
        (
            World(name: "timeout after sending", answers: [refused(.timeout, sent: true)]), .unknown, "tmp.timeout",
            .requiresActivation, 1, []
        ),
        (
            World(name: "connection lost after sending", answers: [refused(.connectionLost, sent: true)]), .unknown,
            "tmp.connectionLost", .requiresActivation, 1, []
        ),
        (World(name: "TLS refused", answers: [refused(.tls)]), .error, "tmp.tls", .requiresActivation, 1, []),
        (
            World(name: "connect timeout", answers: [refused(.connectTimeout)]), .error, "tmp.connectTimeout",
            .requiresActivation, 1, []
        ),
        (
            World(name: "local TLS files refused", answers: [refused(.tlsFiles)]), .error, "config.tlsFiles",
            .requiresActivation, 1, []
        ),
    ]

    @Test(arguments: answered)
    func theAnswerDecidesTheOutcomeAndThePassState(
        world: World, outcome: Outcome, code: String?, passState: PassState, sends: Int, backoffs: [Duration]
    ) {
        let run = Self.drive(world)
        #expect(run.start?.record == Self.waiting)
        #expect(run.sends == sends)
        #expect(run.backoffs == backoffs)
        #expect(run.finish?.passState == passState)
        #expect(run.finish?.answer.outcome == outcome)
        #expect(run.result.outcome == outcome)
        #expect(run.result.error?.code.rawValue == code)
        #expect(run.result.tokenUniqueReference == "DAPL0001")
    }

    @Test func theAnswersFieldsArePrinted() {
        let run = Self.drive(
            World(
                name: "fields",
                answers: [
                    .success(Self.json(200, "APPROVED", extra: #","cardLast4Digits":"1234","comment":"ok\u0007 done""#))
                ]))
        #expect(run.result.cardLast4Digits == "1234")
        #expect(run.result.comment == "ok done")
        #expect(run.result.httpStatus == 200)
    }

    // MARK: Dry run and refused deeplinks

    @Test func aDryRunResolvesAndWritesNothing() {
        let run = Self.drive(World(name: "dry run"), dryRun: true)
        #expect(run.result.outcome == .dryRun)
        #expect(run.result.wouldSendTo == "http://tmp/x")
        #expect(run.result.auditID == nil && run.result.requestID == nil)
        #expect(run.actions.allSatisfy { $0.committedEvent == nil })
        let refused = Self.drive(World(name: "dry run, no pass", records: []), dryRun: true)
        #expect(refused.result.error?.code == .walletNotFound)
        #expect(refused.actions.allSatisfy { $0.committedEvent == nil })
    }

    @Test func aRefusedDeeplinkStopsAtOnceUnaudited() {
        var machine = ActivationMachine(requestID: "req", device: nil, retry: Self.retry)
        let error = DeeplinkParser.tooLong
        guard case .stop(let result) = machine.handle(.parsed(.failure(error))) else {
            Issue.record("expected a stop")
            return
        }
        #expect(result.error?.code == .deeplinkTooLong)
        #expect(result.auditID == nil && result.requestID == nil)
    }

    /// An event the machine does not expect means the executor broke the order: the process
    /// stops there (a made-up result could be printed and exit as a TMP failure).
    @Test func anEventOutOfOrderIsAProgrammingError() throws {
        if ChildRun.isChild("anEventOutOfOrderIsAProgrammingError") {
            var machine = ActivationMachine(
                requestID: "req", device: nil, retry: TMPSettings.Retry(attempts: 1, backoffMilliseconds: []))
            _ = machine.handle(.startedCommitted)
            return
        }
        #expect(try ChildRun.run(test: "anEventOutOfOrderIsAProgrammingError").signalled)
    }

    /// An ERROR result without its error is a programming error too, not exit 69.
    @Test func anErrorResultWithoutItsErrorIsAProgrammingError() throws {
        if ChildRun.isChild("anErrorResultWithoutItsErrorIsAProgrammingError") {
            _ = ActivationResult(outcome: .error).exitStatus
            return
        }
        #expect(try ChildRun.run(test: "anErrorResultWithoutItsErrorIsAProgrammingError").signalled)
    }

    // MARK: Exit statuses of printed results

    @Test(arguments: [
        (Outcome.approved, nil as ErrorCode?, Int32(0)), (.alreadyActivated, nil, 0), (.dryRun, nil, 0),
        (.declined, nil, 2), (.failed, nil, 3), (.unknown, .tmpTimeout, 69), (.unknown, .tmpServerError, 69),
        (.error, .tmpInvalidBody, 76), (.error, .walletAmbiguous, 66), (.error, .deeplinkFragment, 65),
        (.error, .userActivationRequired, 77), (.error, .configInsecureURL, 78), (.error, .storageBusy, 75),
        (.error, .activationInProgress, 75), (.error, .storageCorrupt, 74),
    ])
    func aResultExitsWithItsStatus(outcome: Outcome, code: ErrorCode?, status: Int32) {
        let result = ActivationResult(outcome: outcome, error: code.map { ActivationError(code: $0, message: "m") })
        #expect(result.exitStatus.rawValue == status)
    }
}
