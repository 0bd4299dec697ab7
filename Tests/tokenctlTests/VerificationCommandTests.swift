import Foundation
import Sandbox
import TestSupport
import Testing

/// `tokenctl verification` against the sandbox's enrollment server: the states, their next
/// steps and exit codes, the upload on the wire, and the gate.
@Suite struct VerificationCommandTests {
    static let gate = ["TOKENCTL_ONBOARDING_REQUIRE_FINISHED_USER_ACTIVATION": "true"]

    @Test(arguments: Backend.allCases)
    func aFullVerificationNamesEachStepAndOpensTheGate(_ backend: Backend) async throws {
        let harness = try await DeviceHarness.start(backend: backend)
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(
                try harness.cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001111").status
                    == 0)
            let processID = try harness.onboard()
            let activate = {
                try harness.cli.run(
                    ["activate", "mybank://activate?serialNumber=SN1", "--json"], environment: Self.gate)
            }
            #expect(try activate().status == 77)

            // Every call but status needs the process of a successful status.
            let early = try harness.verification("consent", "--json")
            #expect(early.status == 75)
            #expect(early.errorCode == "verification.missingStatus")
            #expect(early.stderr.contains("tokenctl verification status"))

            let intro = try harness.verification("status")
            #expect(intro.status == 0)
            #expect(intro.stdout.contains("state         intro"))
            #expect(intro.stdout.contains("tokenctl verification consent --approve"))
            let consent = try harness.verification("consent", "--json")
            #expect((consent.object["consentText"] as? String)?.contains("GDPR") == true)
            #expect(
                try harness.verification("consent", "--approve", "--json").object["state"] as? String
                    == "documentsToScanSelect")

            let chosen = try harness.verification("documents", "select", "id-card", "passport", "--json")
            #expect(chosen.object["state"] as? String == "scanDocument")
            #expect(chosen.object["nextDocument"] as? String == "ID_CARD")
            let submitted = try harness.verification(
                "documents", "submit", "--id-card-front", harness.image("f.jpg"), "--id-card-back",
                harness.image("b.jpg"),
                "--passport", harness.image("p.jpg"), "--json"
            )
            #expect(submitted.object["processing"] as? String == "documentUpload", "\(submitted.stderr)")
            // The sandbox read the ZIP's entries by the contract's names.
            #expect(
                harness.sandbox.onboarding.documentFilenames(processID) == [
                    "idcard_front.jpg", "idcard_back.jpg", "passport_front.jpg",
                ])
            let listed = try harness.verification("documents", "status", "--json")
            let documents = try #require(listed.object["documents"] as? [[String: Any]])
            #expect(documents.compactMap { $0["status"] as? String } == ["ACCEPTED", "ACCEPTED", "ACCEPTED"])

            #expect(try harness.verificationState() == "presenceCheck")
            let session = try harness.verification("presence-check", "start", "--json")
            #expect((session.object["sessionAttributes"] as? [String: Any])?.isEmpty == false)
            #expect(
                try harness.verification("presence-check", "done", "--json").object["processing"] as? String
                    == "verifyingPresence")
            #expect(try harness.verificationState() == "otp")

            let wrong = try harness.verification("otp", "verify", "00000000", "--json")
            #expect(wrong.status == 2)
            #expect(wrong.errorCode == "verification.wrongOTP")
            #expect(wrong.stderr.contains("4 attempts left"))
            let tooEarly = try harness.verification("otp", "resend", "--json")
            #expect(tooEarly.status == 75)
            #expect(tooEarly.errorCode == "verification.tooEarly")

            let otp = try #require(harness.sandbox.onboarding.verificationOTP(processID))
            let verified = try harness.verification("otp", "verify", "--otp-file", "-", "--json", stdin: otp + "\n")
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(!verified.stdout.contains(otp) && !verified.stderr.contains(otp))
            let success = try harness.verification("status")
            #expect(success.stdout.contains("state         success"))
            #expect(harness.sandbox.onboarding.processStatus(processID) == "FINISHED")

            let opened = try activate()
            #expect(opened.status == 0, "\(opened.stderr)")
            #expect(opened.outcome == "APPROVED")
        }
    }

    @Test func refusedFilesSendNothing() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.submitDocumentsUpTo(selecting: ["ID_CARD", "PASSPORT"]) == 0)
            let sent = harness.sandbox.requests.count
            let large = try harness.image("large.jpg", bytes: (1 << 20) + 1)
            let cases: [([String], Int32, String)] = [
                (["--passport", large], 65, "verification.fileTooLarge"),
                (["--passport", harness.cli.directory.file("missing.jpg")], 66, "verification.fileUnreadable"),
                (["--passport", harness.cli.directory.path], 66, "verification.fileUnreadable"),
                (["--passport", try harness.privateFile("empty.jpg", "")], 66, "verification.fileUnreadable"),
                (["--driving-license", try harness.image("d.jpg")], 65, "verification.invalidDocument"),
                (["--passport", try harness.image("p.jpg"), "--reupload"], 65, "verification.invalidDocument"),
            ]
            for (arguments, status, code) in cases {
                let result = try harness.cli.run(["verification", "documents", "submit", "--json"] + arguments)
                #expect(result.status == status, "\(arguments): \(result.stderr)")
                #expect(result.errorCode == code, "\(arguments)")
            }
            // A re-upload asks the server for the documents first; nothing else went out.
            let paths = harness.sandbox.requests.dropFirst(sent).map(\.path)
            #expect(!paths.contains("/api/identity/document/submit"), "\(paths)")
            #expect(harness.sandbox.requests.dropFirst(sent).allSatisfy { $0.body.count < 4_096 })
        }
    }

    @Test func aRejectedImageIsUploadedAgainAllOrNone() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            #expect(try harness.submitDocuments(front: "SBXREJECT") == "scanDocument")
            let status = try harness.verification("status", "--json")
            let documents = try #require(status.object["documents"] as? [[String: Any]])
            #expect(documents.compactMap { $0["state"] as? String } == ["rejected", "accepted"])
            // Only the front was rejected: the hint asks for it alone, with the whole command.
            #expect(
                (status.object["next"] as? String)?.contains(
                    "send the rejected ID_CARD front again with `tokenctl verification documents submit --id-card-front F --reupload`"
                ) == true, "\(status.stdout)")
            #expect(harness.sandbox.onboarding.errorScore(processID) == 2)

            // A new front without --reupload would be a second copy beside the rejected one:
            // refused before anything is sent, naming the option.
            let sent = harness.sandbox.requests.count
            let second = try harness.verification(
                "documents", "submit", "--id-card-front", harness.image("f1.jpg"), "--json")
            #expect(second.status == 65 && second.errorCode == "verification.invalidDocument", "\(second.stderr)")
            #expect(
                second.stderr.contains("the server already has the ID_CARD FRONT (rejected)")
                    && second.stderr.contains("--reupload"), "\(second.stderr)")
            #expect(!harness.sandbox.requests.dropFirst(sent).contains { $0.path == "/api/identity/document/submit" })

            let again = try harness.verification(
                "documents", "submit", "--id-card-front", harness.image("f2.jpg"), "--reupload", "--json")
            #expect(again.status == 0, "\(again.stderr)")
            let submit = try #require(harness.sandbox.requests.last { $0.path == "/api/identity/document/submit" })
            #expect(submit.header("X-PowerAuth-Token") != nil && submit.header("X-PowerAuth-Encryption") != nil)
            #expect(try harness.verificationState() == "presenceCheck")
            // The replaced original is kept as DISPOSED, not listed.
            #expect(harness.sandbox.onboarding.documentFilenames(processID).count == 4)
            #expect(
                try #require(
                    harness.verification("documents", "status", "--json").object["documents"] as? [[String: Any]]
                )
                .count == 3)
        }
    }

    @Test(arguments: [
        ("SBXENDSTATE", "endstate", "cancel the ended process with `tokenctl verification cancel`"),
        ("SBXFAIL", "scanDocument", "--reupload"),
    ])
    func markersDecideTheOutcome(marker: String, state: String, next: String) async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            #expect(
                try harness.cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001111").status
                    == 0)
            _ = try harness.onboard()
            #expect(try harness.submitDocuments(passport: marker) == state)
            let result = try harness.verification("status")
            #expect(result.stdout.contains(next), "\(result.stdout)")
            #expect(result.status == (state == "endstate" ? 3 : 0))

            // The gate names the same way on as the verification: after a rejection (an end state,
            // which nothing continues) a cancel and a new onboarding, not a restart.
            let gated = try harness.cli.run(["activate", "mybank://activate?serialNumber=SN1"], environment: Self.gate)
            #expect(gated.status == 77 && gated.stderr.contains("(user.activationRequired)"), "\(gated.stderr)")
            let reason =
                state == "endstate"
                ? "identity verification was rejected" : "identity verification has not ended (state scanDocument)"
            #expect(gated.stderr.contains(reason), "\(gated.stderr)")
            #expect(
                gated.stderr.contains(
                    state == "endstate" ? "`tokenctl verification cancel`" : "`tokenctl verification run`"),
                "\(gated.stderr)")
            #expect(!gated.stderr.contains("verification restart"), "\(gated.stderr)")

            // What the advice says works: restart is refused in an end state, the consent offers no
            // --approve, the cancel ends the process, and onboarding starts again.
            if state == "endstate" {
                let restarted = try harness.verification("restart")
                #expect(
                    restarted.status != 0 && restarted.stderr.contains("(verification.endstate)")
                        && restarted.stderr.contains("`tokenctl verification cancel`"), "\(restarted.stderr)")
                let consent = try harness.verification("consent")
                #expect(
                    consent.status == 3 && !consent.stdout.contains("--approve")
                        && consent.stdout.contains("`tokenctl onboarding start"), "\(consent.stdout)")
                let cancelled = try harness.verification("cancel")
                #expect(cancelled.status == 0, "\(cancelled.stderr)")
                _ = try harness.onboard()
                #expect(try harness.verificationState() == "intro")
            }
        }
    }

    /// After a successful verification every command that would change it names the state
    /// (65, "nothing to …"): the server's refusal is not an end state, and nothing tells the
    /// user to remove a verified device. `documents status` only reads.
    @Test func aVerifiedDeviceIsToldThereIsNothingToDo() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            try harness.verifyIdentity(processID)
            let image = try harness.image("passport.jpg")
            for (arguments, action) in [
                (["consent"], "consent to"), (["consent", "--approve"], "consent to"),
                (["presence-check", "start"], "check"),
                (["presence-check", "done"], "check"), (["documents", "submit", "--passport", image], "submit"),
                (["documents", "select", "PASSPORT"], "choose"), (["otp", "resend"], "resend"),
                (["otp", "verify", "12345678"], "verify"),
            ] {
                let result = try harness.cli.run(["verification"] + arguments + ["--json"])
                #expect(result.status == 65, "\(arguments): \(result.stderr)")
                #expect(result.errorCode == "verification.wrongStep", "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains("the verification succeeded; there is nothing to \(action)"),
                    "\(arguments): \(result.stderr)")
                #expect(!result.stderr.contains("device remove"), "\(arguments): \(result.stderr)")
            }
            let documents = try harness.verification("documents", "status")
            #expect(documents.status == 0, "\(documents.stderr)")
            #expect(
                documents.stdout.contains(
                    "the verification succeeded; the server lists documents only while a verification is in progress"),
                "\(documents.stdout)")
            #expect(try harness.verificationState() == "success")
        }
    }

    @Test func aFailedPresenceCheckGoesBackToItAndExhaustedOTPsRestart() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            #expect(try harness.submitDocuments(front: "SBXPRESENCEFAIL") == "presenceCheck")
            #expect(try harness.verification("presence-check", "start").status == 0)
            #expect(try harness.verification("presence-check", "done").status == 0)
            let verified = try harness.verification(
                "otp", "verify", try #require(harness.sandbox.onboarding.verificationOTP(processID)))
            #expect(verified.status == 0)
            #expect(
                verified.stdout.contains("detail        the server is finishing the verification"), "\(verified.stdout)"
            )
            // The status that sees the server back at the presence check says why.
            let back = try harness.verification("status")
            #expect(back.status == 0)
            #expect(
                back.stdout.contains(
                    "state         presenceCheck\ndetail        the presence check failed; do it again\n"),
                "\(back.stdout)")
            #expect(try harness.verification("status", "--json").object["state"] as? String == "presenceCheck")

            #expect(try harness.verification("presence-check", "start").status == 0)
            #expect(try harness.verification("presence-check", "done").status == 0)
            #expect(try harness.verificationState() == "otp")
            var statuses: [Int32] = []
            for _ in 0..<5 { statuses.append(try harness.verification("otp", "verify", "00000000").status) }
            #expect(statuses == [2, 2, 2, 2, 3])
            // The verification starts again from the consent, with the device still pending.
            #expect(try harness.verificationState() == "intro")
            #expect(
                harness.server.activationFlags(try #require(harness.status()["activationId"] as? String)) == [
                    "VERIFICATION_PENDING"
                ])
        }
    }

    @Test func aWrongStepIsNamedAndRestartAndCancelEndIt() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            #expect(try harness.submitDocuments() == "presenceCheck")
            let wrongStep = try harness.verification("otp", "resend", "--json")
            #expect(wrongStep.status == 65)
            #expect(wrongStep.errorCode == "verification.wrongStep")
            #expect(wrongStep.stderr.contains("presenceCheck"))

            #expect(try harness.verification("restart", "--json").object["state"] as? String == "intro")
            #expect(harness.sandbox.onboarding.identityPair(processID) == "-/NOT_INITIALIZED")
            #expect(try harness.verificationState() == "intro")

            let cancelled = try harness.verification("cancel")
            #expect(cancelled.status == 0, "\(cancelled.stderr)")
            #expect(cancelled.stdout.contains("tokenctl onboarding start"))
            #expect(harness.sandbox.onboarding.processStatus(processID) == "FAILED")
            #expect(try harness.device("show", "--json").errorCode == "powerauth.notActivated")

            // Afterwards every verification command (a second cancel too) names onboarding, the
            // way to the activation a verification needs, not a command that answers the same.
            for arguments in [["cancel"], ["status"], ["restart"]] {
                let again = try harness.cli.run(["verification"] + arguments)
                #expect(
                    again.status == 77 && again.stderr.contains("(powerauth.notActivated)"),
                    "\(arguments): \(again.stderr)"
                )
                #expect(
                    again.stderr.contains(
                        "run `tokenctl onboarding start --credentials JSON`, then `tokenctl onboarding activate --otp CODE`"
                    ), "\(arguments): \(again.stderr)")
                #expect(!again.stderr.contains("verification status"), "\(arguments): \(again.stderr)")
            }
            // The device commands name both ways to an activation.
            let device = try harness.device("status")
            #expect(
                device.stderr.contains(
                    "onboard with `tokenctl onboarding start --credentials JSON`, or use an activation code with `tokenctl device activate`"
                ), "\(device.stderr)")
        }
    }

    @Test func anExpiredVerificationFailsAndAnInactiveDeviceIsNamed() async throws {
        let clock = ManualClock()
        let harness = try await DeviceHarness.start(onboarding: OnboardingOptions(clock: clock.reader))
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            #expect(try harness.verificationState() == "intro")
            clock.advance(seconds: 60 * 60 + 1)
            let expired = try harness.verification("status", "--json")
            #expect(expired.status == 3)
            #expect(expired.object["state"] as? String == "failed")
            let refused = try harness.verification("consent", "--approve", "--json")
            #expect(refused.status == 3)
            #expect(refused.errorCode == "verification.endstate")

            harness.server.removeActivation(id: try #require(harness.status()["activationId"] as? String))
            let inactive = try harness.verification("status", "--json")
            #expect(inactive.status == 77)
            #expect(inactive.errorCode == "verification.activationNotActive")
            // The failed status is forgotten: the next call needs a new one.
            #expect(try harness.verification("consent", "--json").errorCode == "verification.missingStatus")
            _ = processID
        }
    }

    @Test func anAnswerNoStateFitsIsACodedError() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            harness.sandbox.onboarding.injectAnswer(
                path: "/api/identity/status",
                body:
                    #"{"status":"OK","responseObject":{"processId":"\#(processID)","identityVerificationPhase":"OTP_VERIFICATION","identityVerificationStatus":"ACCEPTED"}}"#,
                encrypted: false
            )
            let result = try harness.verification("status", "--json")
            #expect(result.status == 76)
            #expect(result.errorCode == "verification.unexpectedState")
            #expect(result.stderr.contains("OTP_VERIFICATION"))
        }
    }

    @Test func runRefusesWithoutATerminal() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let result = try harness.verification("run")
            #expect(result.status == 64)
            #expect(result.stderr.contains("tokenctl verification status"))
            #expect(harness.sandbox.requests.isEmpty)
        }
    }
}

extension DeviceHarness {
    /// Consent and document types: the exit status of the selection.
    func submitDocumentsUpTo(selecting types: [String]) throws -> Int32 {
        #expect(try verificationState() == "intro")
        #expect(try verification("consent", "--approve").status == 0)
        return try cli.run(["verification", "documents", "select"] + types).status
    }
}

/// `tokenctl verification run` on a pseudo-terminal: prompts, progress, Ctrl-C, resume.
@Suite struct VerificationRunTests {
    @Test func theInteractiveRunStopsOnCtrlCAndResumesToSuccess() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            let arguments = ["verification", "run", "--poll-interval", "0.1"]

            let first = try TerminalSession(harness.cli, arguments)
            try await first.waitFor("Approve the consent? [y/N] ")
            #expect(first.text.contains("GDPR"))
            first.type("y\n")
            try await first.waitFor("Documents to scan")
            first.type("\u{03}")
            #expect(try await first.finish() == 130)
            #expect(first.text.contains("run `tokenctl verification run` again to resume"))
            #expect(harness.sandbox.onboarding.identityPair(processID) == "DOCUMENT_UPLOAD/IN_PROGRESS")

            let second = try TerminalSession(harness.cli, arguments)
            try await second.waitFor("Documents to scan")
            second.type("ID_CARD PASSPORT\n")
            try await second.waitFor("File of the ID_CARD front image: ")
            // A refused file is checked as it is named and asked for again at once, alone.
            second.type(harness.cli.directory.file("missing.jpg") + "\n")
            try await second.waitFor("give this file again")
            try await second.waitFor("File of the ID_CARD front image: ", count: 2)
            second.type(try harness.image("f.jpg") + "\n")
            try await second.waitFor("File of the ID_CARD back image: ")
            second.type(try harness.image("b.jpg") + "\n")
            try await second.waitFor("File of the PASSPORT front image: ")
            second.type(try harness.image("p.jpg") + "\n")
            try await second.waitFor("submitted 3 images")
            #expect(
                second.text.components(separatedBy: "File of the ID_CARD back image: ").count == 2,
                "asked once:\n\(second.text)")
            try await second.waitFor("then press Enter: ")
            second.type("\n")
            try await second.waitFor("OTP: ")
            second.type("00000000\n")
            try await second.waitFor("4 attempts left")
            try await second.waitFor("OTP: ", count: 2)
            second.type(try #require(harness.sandbox.onboarding.verificationOTP(processID)) + "\n")
            try await second.waitFor("state         success")
            #expect(try await second.finish() == 0)
            #expect(harness.sandbox.onboarding.processStatus(processID) == "FINISHED")
            #expect(harness.sandbox.requests.filter { $0.path == "/api/identity/document/submit" }.count == 1)
        }
    }

    /// Every chosen document accepted while the server needs others: the walk says so and
    /// asks for the types again (it used to wait silently for ever); an empty or repeated
    /// answer is asked again; the accepted document is not asked for again.
    @Test func theRunAsksForOtherDocumentsWhenTheServerNeedsThem() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            #expect(try harness.submitDocumentsUpTo(selecting: ["ID_CARD"]) == 0)
            let submitted = try harness.verification(
                "documents", "submit", "--id-card-front", harness.image("f.jpg"), "--id-card-back",
                harness.image("b.jpg"))
            #expect(submitted.status == 0, "\(submitted.stderr)")

            let run = try TerminalSession(harness.cli, ["verification", "run", "--poll-interval", "0.1"])
            try await run.waitFor("the server needs other documents beside them")
            #expect(run.text.contains("every chosen document (ID_CARD) is accepted"), "\(run.text)")
            try await run.waitFor("Documents to scan")
            run.type("\n")
            try await run.waitFor("Documents to scan", count: 2)
            run.type("ID_CARD ID_CARD\n")
            try await run.waitFor("choose distinct document types")
            try await run.waitFor("Documents to scan", count: 3)
            run.type("ID_CARD PASSPORT\n")
            try await run.waitFor("File of the PASSPORT front image: ")
            #expect(!run.text.contains("File of the ID_CARD"), "\(run.text)")
            run.type("\u{03}")
            #expect(try await run.finish() == 130)
            #expect(harness.sandbox.onboarding.identityPair(processID) == "DOCUMENT_UPLOAD/IN_PROGRESS")
        }
    }

    /// A consent not approved ends the walk with its own status and code (not Ctrl-C's 130);
    /// the end of input stops it on a line of its own.
    @Test func aDeclinedConsentAndTheEndOfInputEndTheWalkDistinctly() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            let arguments = ["verification", "run", "--poll-interval", "0.1"]

            let declined = try TerminalSession(harness.cli, arguments)
            try await declined.waitFor("Approve the consent? [y/N] ")
            declined.type("n\n")
            #expect(try await declined.finish() == 2)
            #expect(
                declined.text.contains("the consent was not approved; the verification waits for it"),
                "\(declined.text)")
            #expect(declined.text.contains("(verification.consentNotApproved)"))
            #expect(harness.sandbox.onboarding.identityPair(processID) == "-/NOT_INITIALIZED")

            let ended = try TerminalSession(harness.cli, arguments)
            try await ended.waitFor("Approve the consent? [y/N] ")
            ended.type("\u{04}")
            #expect(try await ended.finish() == 130)
            let lines = ended.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains("stopped; run `tokenctl verification run` again to resume"), "\(ended.text)")
            #expect(!ended.text.contains("[y/N] stopped"))
        }
    }

    /// While the server works, the walk says so as it happens: the progress lines reach the
    /// terminal before the next prompt, spaced by the server's steps (not all at once).
    @Test func progressReachesTheTerminalWhileTheServerWorks() async throws {
        let harness = try await DeviceHarness.start(onboarding: OnboardingOptions(verificationStepInterval: 0.6))
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.submitDocumentsUpTo(selecting: ["ID_CARD", "PASSPORT"]) == 0)
            let session = try TerminalSession(harness.cli, ["verification", "run", "--poll-interval", "0.1"])
            try await session.waitFor("File of the ID_CARD front image: ")
            session.type(try harness.image("f.jpg") + "\n")
            try await session.waitFor("File of the ID_CARD back image: ")
            session.type(try harness.image("b.jpg") + "\n")
            try await session.waitFor("File of the PASSPORT front image: ")
            session.type(try harness.image("p.jpg") + "\n")
            try await session.waitFor("submitted 3 images")
            try await session.waitFor("… the server is working")
            try await session.waitFor("then press Enter: ")
            // Timed where the output was read, not where this task woke up.
            let submitted = try #require(session.arrival(of: "submitted 3 images"))
            let working = try #require(session.arrival(of: "… the server is working"))
            let prompt = try #require(session.arrival(of: "then press Enter: "))
            #expect(
                prompt - submitted >= .milliseconds(500), "the progress came at once with the prompt:\n\(session.text)")
            #expect(working < prompt, "the progress came with the prompt:\n\(session.text)")
            session.type("\u{03}")
            _ = try await session.finish()
        }
    }
}

extension VerificationCommandTests {
    /// Before the OTP step no OTP exists: `otp show` and `otp verify` name the state the
    /// verification is in (65), instead of "failed" advice that starts nothing again.
    @Test func theOTPCommandsBeforeTheOTPStepNameTheState() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.submitDocuments() == "presenceCheck")
            for arguments in [["otp", "show", "--json"], ["otp", "verify", "12345678", "--json"]] {
                let early = try harness.cli.run(["verification"] + arguments)
                #expect(early.status == 65, "\(arguments): \(early.stderr)")
                #expect(early.errorCode == "verification.wrongStep")
                #expect(early.stderr.contains("the verification is in state presenceCheck, not otp"), "\(early.stderr)")
            }
            #expect(try harness.verificationState() == "presenceCheck")
        }
    }

    /// After a successful verification there is nothing to restart, and cancelling (which
    /// throws the verified device away) needs --force.
    @Test func aSucceededVerificationIsNotRestartedOrCancelledByAccident() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let processID = try harness.onboard()
            try harness.verifyIdentity(processID)

            let restart = try harness.verification("restart", "--json")
            #expect(restart.status == 65)
            #expect(restart.errorCode == "verification.wrongStep")
            #expect(
                restart.stderr.contains("the verification succeeded; there is nothing to restart"), "\(restart.stderr)")
            #expect(!restart.stderr.contains("device remove"))

            let cancel = try harness.verification("cancel")
            #expect(cancel.status == 65)
            #expect(
                cancel.stderr.contains(
                    "discards the verified device activation (tokenctl verification cancel --force does)"),
                "\(cancel.stderr)")
            #expect(try harness.verificationState() == "success")
            #expect(try harness.device("show", "--json").status == 0)

            let forced = try harness.verification("cancel", "--force")
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try harness.device("show", "--json").errorCode == "powerauth.notActivated")

            // Cancelling again, forced or not, gets one answer: no device activation, onboard.
            for arguments in [["cancel", "--json"], ["cancel", "--force", "--json"]] {
                let again = try harness.cli.run(["verification"] + arguments)
                #expect(again.status == 77, "\(arguments): \(again.stderr)")
                #expect(again.errorCode == "powerauth.notActivated", "\(arguments): \(again.stderr)")
                #expect(again.stderr.contains("tokenctl onboarding start"), "\(arguments): \(again.stderr)")
            }
        }
    }

    /// Every chosen document accepted while the server still waits at scanDocument: the hint
    /// names the way on (choose the documents it needs), not `status` again and again.
    @Test func acceptedDocumentsTheServerDoesNotNeedNameTheSelection() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.submitDocumentsUpTo(selecting: ["ID_CARD"]) == 0)
            let submitted = try harness.verification(
                "documents", "submit", "--id-card-front", harness.image("f.jpg"), "--id-card-back",
                harness.image("b.jpg"))
            #expect(submitted.status == 0, "\(submitted.stderr)")
            // The table has a header row and no line ends in spaces.
            let table = try harness.verification("documents", "status")
            let rows = table.stdout.split(separator: "\n").map(String.init)
            #expect(rows.first?.hasPrefix("TYPE") == true && rows.first?.contains("STATUS") == true, "\(table.stdout)")
            #expect(rows.count == 3 && rows.allSatisfy { !$0.hasSuffix(" ") }, "\(table.stdout)")
            // Aligned: each column starts where its header does.
            let sideColumn = try #require(rows.first?.range(of: "SIDE")).lowerBound.utf16Offset(in: rows[0])
            #expect(
                rows.dropFirst().allSatisfy {
                    $0.utf16.count > sideColumn && ["F", "B"].contains($0.dropFirst(sideColumn).first)
                }, "\(table.stdout)")
            let status = try harness.verification("status", "--json")
            #expect(status.object["state"] as? String == "scanDocument", "\(status.stdout)")
            let next = try #require(status.object["next"] as? String)
            #expect(
                next.contains(
                    "every chosen document (ID_CARD) is accepted, and the server needs other documents beside them"),
                "\(next)")
            #expect(next.contains("`tokenctl verification documents select ID_CARD PASSPORT`"), "\(next)")

            // Following the hint: the accepted ID card counts, only the passport is asked for.
            let chosen = try harness.verification("documents", "select", "ID_CARD", "PASSPORT", "--json")
            #expect(chosen.status == 0, "\(chosen.stderr)")
            let documents = try #require(chosen.object["documents"] as? [[String: Any]])
            #expect(documents.map { $0["state"] as? String } == ["accepted", "notUploaded"], "\(chosen.stdout)")
            #expect(chosen.object["nextDocument"] as? String == "PASSPORT")
            let passport = try harness.verification("documents", "submit", "--passport", harness.image("p.jpg"))
            #expect(passport.status == 0, "\(passport.stderr)")
        }
    }

    /// In another step `documents submit` names the step before it looks at the files: no
    /// advice to add --reupload that the step would refuse.
    @Test func documentsSubmittedInAnotherStepNameTheStep() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.submitDocuments() == "presenceCheck")
            let again = try harness.verification("documents", "submit", "--passport", harness.image("p2.jpg"), "--json")
            #expect(again.status == 65, "\(again.stderr)")
            #expect(again.errorCode == "verification.wrongStep")
            #expect(
                again.stderr.contains("the verification is in state presenceCheck, not scanDocument"), "\(again.stderr)"
            )
            #expect(!again.stderr.contains("--reupload"), "\(again.stderr)")
        }
    }

    /// A device activation the server removed (its onboarding process failed) is named as
    /// removed, with the way on; no counter is spoken of, and onboarding does not call the
    /// instance "already activated".
    @Test func aRemovedActivationIsNamedAsRemoved() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            harness.server.removeActivation(id: try #require(harness.status()["activationId"] as? String))
            let device = try harness.device("status")
            #expect(
                device.stdout.contains(
                    "state         REMOVED (the server removed this device activation; it cannot sign again)"),
                "\(device.stdout)")
            #expect(device.stdout.contains("`tokenctl device remove --local`, then onboard again"), "\(device.stdout)")
            #expect(!device.stdout.contains("counter"), "\(device.stdout)")
            let onboarding = try harness.onboarding("status")
            #expect(!onboarding.stderr.contains("already activated"), "\(onboarding.stderr)")
            #expect(onboarding.stderr.contains("this instance has a device activation"), "\(onboarding.stderr)")
        }
    }

    /// Choosing documents before the consent is approved names the state the server is in,
    /// and chooses nothing.
    @Test func documentsChosenBeforeTheConsentNameTheState() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.onboard()
            #expect(try harness.verificationState() == "intro")
            let early = try harness.verification("documents", "select", "ID_CARD", "--json")
            #expect(early.status == 65, "\(early.stdout)\(early.stderr)")
            #expect(early.errorCode == "verification.wrongStep")
            #expect(
                early.stderr.contains("the verification is in state intro, not documentsToScanSelect"),
                "\(early.stderr)")
            #expect(!early.stdout.contains("scanDocument"))
        }
    }
}
