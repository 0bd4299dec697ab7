import ArgumentParser
import Dispatch
import ErrorCodes
import Foundation
import Glibc
import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct VerificationRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Walk the whole verification on a terminal: consent, document images, presence check, OTP.",
        discussion: """
            Asks the server for the state, prompts for what it needs, and shows progress while the \
            server works. Each image file is checked as it is named (readable, not empty, at most \
            1 MiB) and asked for again when it fails. Ctrl-C (or end of input) stops it with exit \
            130; the server keeps the verification, so running it again resumes where it stopped. \
            A consent not approved ends it with exit 2 (verification.consentNotApproved): the \
            verification waits for the consent. Without a terminal it refuses: use the single \
            commands (`tokenctl verification status` names the next one).
            """
    )

    @Option(
        name: .customLong("poll-interval"),
        help: ArgumentHelp("Seconds between status calls while the server works.", valueName: "seconds"))
    var pollInterval: Double = 2

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard pollInterval >= 0.1, pollInterval <= 60 else {
            throw ValidationError("--poll-interval must be between 0.1 and 60 seconds")
        }
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw reportedUsage(
                "verification run needs a terminal; without one, use the single commands: `tokenctl verification status` names the next one"
            )
        }
        let interrupt = InterruptHandler(exitingWith: Self.resumeMessage)
        defer { interrupt.cancel() }
        var outcome = VerificationWalk.Outcome.stopped
        try await reportingErrors(json: false) {
            outcome = try await global.withVerification {
                try await VerificationWalk(process: $0, pollInterval: pollInterval).run()
            }
        }
        switch outcome {
        case .verified: return
        case .stopped:
            Output.line(Self.resumeMessage)
            throw ExitCode(130)
        case .consentNotApproved:
            let code = ErrorCode.verificationConsentNotApproved
            Output.error(
                "the consent was not approved; the verification waits for it: run `tokenctl verification run` again to read and approve it (\(code.rawValue))"
            )
            throw ExitCode(code.exitStatus.rawValue)
        case .ended: throw ExitCode(3)
        }
    }

    /// Ctrl-C while the walk waits or prompts, or the end of input: nothing local is
    /// half-written (each step is one database write), and the server keeps the verification.
    static let resumeMessage = "stopped; run `tokenctl verification run` again to resume"

    private func reportedUsage(_ message: String) -> ExitCode {
        Output.error("\(message) (usage.invalid)")
        return ExitCode(64)
    }
}

/// The interactive flow: asks the state, acts on it, until the user is verified, the
/// verification ended, or the user stops.
struct VerificationWalk {
    enum Outcome { case verified, stopped, consentNotApproved, ended }

    let process: VerificationProcess
    let pollInterval: Double

    func run() async throws -> Outcome {
        var waiting: VerificationState.ProcessingItem?
        while true {
            let report = try await process.report()
            let state = report.state
            if report.presenceCheckFailed { say(VerificationText.presenceCheckFailed) }
            let step = VerificationWalkStep(state)
            if case .wait(let item) = step, waiting != item { say("… the server is working: \(item.rawValue)") }
            if case .wait(let item) = step { waiting = item } else { waiting = nil }
            switch step {
            case .wait:
                try await Task.sleep(for: .milliseconds(Int(pollInterval * 1000)))
            case .approveConsent:
                if let outcome = try await consent() { return outcome }
            case .selectDocuments:
                guard try await chooseDocuments() else { return .stopped }
            case .chooseOtherDocuments(let accepted):
                say(VerificationText.otherDocuments(accepted))
                guard try await chooseDocuments() else { return .stopped }
            case .submitDocuments(let documents, let reupload):
                guard try await submit(documents, reupload: reupload) else { return .stopped }
            case .presenceCheck:
                _ = try await process.presenceCheckInit()
                guard ask("Do the presence check in the presence-check app, then press Enter: ") != nil else {
                    return .stopped
                }
                _ = try await process.presenceCheckSubmit()
            case .enterOTP:
                guard let code = ask("OTP: ") else { return .stopped }
                do {
                    _ = try await process.verifyOTP(code.trimmingCharacters(in: .whitespaces))
                } catch let error as VerificationError
                    where error.code == .verificationWrongOTP || error.code == .verificationOTPFailed
                {
                    say(error.message)
                }
            case .offerRestart(let rejected):
                say(rejected ? "identity verification was rejected" : "identity verification failed")
                guard ask("Start again? [y/N] ").map(Self.isYes) == true else {
                    say("next          \(VerificationText.next(state))")
                    return .ended
                }
                _ = try await process.restart()
            case .finished(let verified):
                VerificationText.lines(state).forEach(say)
                return verified ? .verified : .ended
            }
        }
    }

    /// Asks for the document types until a choice is taken (an unknown, repeated or empty
    /// answer is asked again); false at end of input.
    private func chooseDocuments() async throws -> Bool {
        while true {
            guard let answer = ask("Documents to scan (ID_CARD, PASSPORT, DRIVING_LICENSE; e.g. ID_CARD PASSPORT): ")
            else { return false }
            do {
                _ = try await process.selectDocumentTypes(
                    try answer.split(separator: " ").map { try DocumentsSelect.documentType(String($0)) })
                return true
            } catch let error as UsageError {
                say(error.message)
            } catch let error as VerificationError where error.code == .verificationInvalidDocument {
                say(error.message)
            }
        }
    }

    /// Shows the consent and approves it when the user says yes; otherwise how the walk ends.
    private func consent() async throws -> Outcome? {
        let text = try await process.consentText()
        ["", SafeText.escaped(text), ""].forEach(say)
        guard let answer = ask("Approve the consent? [y/N] ") else { return .stopped }
        guard Self.isYes(answer) else { return .consentNotApproved }
        _ = try await process.approveConsent()
        return nil
    }

    /// Asks for the images of `documents`. A refused file is asked for again.
    private func submit(_ documents: [ScanProcess.Document], reupload: Bool) async throws -> Bool {
        while true {
            var files: [DocumentImageFile] = []
            for document in documents {
                for side in reupload ? document.sidesToSubmit : document.type.sides ?? [] {
                    let what =
                        reupload
                        ? "new image of the \(document.type) \(side.rawValue.lowercased())"
                        : "\(document.type) \(side.rawValue.lowercased()) image"
                    guard let path = askFile(what) else { return false }
                    files.append(DocumentImageFile(type: document.type, side: side, path: path))
                }
            }
            do {
                _ = try await process.submitDocuments(files, reupload: reupload)
                say("submitted \(files.count) image\(files.count == 1 ? "" : "s")")
                return true
            } catch let error as VerificationError
                where [.verificationFileTooLarge, .verificationFileUnreadable, .verificationInvalidDocument].contains(
                    error.code)
            {
                say("\(error.message); give the files again")
            }
        }
    }

    /// Asks for one image file until one passes the checks the upload makes; nil at end of
    /// input.
    private func askFile(_ what: String) -> String? {
        while true {
            guard let answer = ask("File of the \(what): ") else { return nil }
            let path = answer.trimmingCharacters(in: .whitespaces)
            do {
                try DocumentSubmission.check(path)
                return path
            } catch {
                say("\(error.message); give this file again")
            }
        }
    }

    /// A line of the walk, on the terminal at once: the walk waits between lines (for the
    /// server, for the user), so nothing may sit in the buffer meanwhile.
    private func say(_ text: String) {
        Output.line(text)
        Output.flush()
    }

    /// One line from the terminal; nil at end of input, after ending the prompt's line (so
    /// what follows starts a line of its own).
    private func ask(_ prompt: String) -> String? {
        Output.flush()
        FileHandle.standardOutput.write(Data(prompt.utf8))
        guard let line = readLine() else {
            say("")
            return nil
        }
        return line
    }

    static func isYes(_ answer: String) -> Bool {
        ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
