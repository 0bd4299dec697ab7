import ArgumentParser
import Dispatch
import Foundation
import Glibc
import OnboardingCore
import TokenActivation
import TokenctlApp
import WalletModel

struct VerificationRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Walk the whole verification on a terminal: consent, document images, presence check, OTP.",
        discussion: """
            Asks the server for the state, prompts for what it needs, and shows progress while the \
            server works. Ctrl-C (or end of input) stops it; the server keeps the verification, so \
            running it again resumes where it stopped. Without a terminal it refuses: use the single \
            commands (`tokenctl verification status` names the next one).
            """
    )

    @Option(name: .customLong("poll-interval"), help: ArgumentHelp("Seconds between status calls while the server works.", valueName: "seconds"))
    var pollInterval: Double = 2

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard pollInterval >= 0.1, pollInterval <= 60 else { throw ValidationError("--poll-interval must be between 0.1 and 60 seconds") }
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            throw reportedUsage("verification run needs a terminal; without one, use the single commands: `tokenctl verification status` names the next one")
        }
        let interrupt = ResumeOnInterrupt()
        defer { interrupt.cancel() }
        var outcome = VerificationWalk.Outcome.stopped
        try await reportingErrors(json: false) {
            outcome = try await global.withVerification { try await VerificationWalk(process: $0, pollInterval: pollInterval).run() }
        }
        switch outcome {
        case .verified: return
        case .stopped:
            Output.line(ResumeOnInterrupt.message)
            throw ExitCode(130)
        case .ended: throw ExitCode(3)
        }
    }

    private func reportedUsage(_ message: String) -> ExitCode {
        Output.error("\(message) (usage.invalid)")
        return ExitCode(64)
    }
}

/// Ctrl-C while the walk waits or prompts: say how to resume, exit 130. Nothing local is
/// half-written (each step is one database write), and the server keeps the verification.
final class ResumeOnInterrupt: @unchecked Sendable {
    static let message = "stopped; run `tokenctl verification run` again to resume"
    private let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "tokenctl.verification.interrupt"))

    init() {
        Glibc.signal(SIGINT, SIG_IGN)
        source.setEventHandler {
            Output.flush()
            let text = "\n" + Self.message + "\n"
            _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            _exit(130)
        }
        source.resume()
    }

    func cancel() {
        source.cancel()
        Glibc.signal(SIGINT, SIG_DFL)
    }
}

/// The interactive flow: asks the state, acts on it, until the user is verified, the
/// verification ended, or the user stops.
struct VerificationWalk {
    enum Outcome { case verified, stopped, ended }

    let process: VerificationProcess
    let pollInterval: Double

    func run() async throws -> Outcome {
        var waiting: VerificationState.ProcessingItem?
        while true {
            let state = try await process.status()
            if case .processing(let item) = state {
                if waiting != item { Output.line("… the server is working: \(item.rawValue)") }
                waiting = item
                try await Task.sleep(for: .milliseconds(Int(pollInterval * 1000)))
                continue
            }
            waiting = nil
            switch state {
            case .intro, .consent:
                guard try await consent() else { return .stopped }
            case .documentsToScanSelect:
                guard let types = ask("Documents to scan (ID_CARD, PASSPORT, DRIVING_LICENSE; e.g. ID_CARD PASSPORT): ") else { return .stopped }
                do {
                    _ = try await process.selectDocumentTypes(try types.split(separator: " ").map { try DocumentsSelect.documentType(String($0)) })
                } catch let error as UsageError {
                    Output.line(error.message)
                }
            case .scanDocument(let scan):
                guard try await submit(scan) else { return .stopped }
            case .presenceCheck:
                _ = try await process.presenceCheckInit()
                guard ask("Do the presence check in the presence-check app, then press Enter: ") != nil else { return .stopped }
                _ = try await process.presenceCheckSubmit()
            case .otp:
                guard let code = ask("OTP: ") else { return .stopped }
                do {
                    _ = try await process.verifyOTP(code.trimmingCharacters(in: .whitespaces))
                } catch let error as VerificationError where error.code == .verificationWrongOTP || error.code == .verificationOTPFailed {
                    Output.line(error.message)
                }
            case .failed:
                Output.line("identity verification failed")
                guard ask("Start again? [y/N] ").map(Self.isYes) == true else {
                    Output.line("next          \(VerificationText.next(.failed))")
                    return .ended
                }
                _ = try await process.restart()
            case .endstate, .success, .processing:
                VerificationText.lines(state).forEach(Output.line)
                return state == .success ? .verified : .ended
            }
        }
    }

    private func consent() async throws -> Bool {
        let text = try await process.consentText()
        ["", SafeText.escaped(text), ""].forEach(Output.line)
        guard let answer = ask("Approve the consent? [y/N] ") else { return false }
        guard Self.isYes(answer) else {
            Output.line("not approved; the verification waits for the consent")
            return false
        }
        _ = try await process.approveConsent()
        return true
    }

    /// Asks for the images of every document not accepted: rejected ones first (a
    /// re-upload), then new ones. A refused file is asked for again.
    private func submit(_ scan: ScanProcess) async throws -> Bool {
        let todo = scan.documents.filter { $0.uploadState != .accepted }
        if todo.isEmpty {
            try await Task.sleep(for: .milliseconds(Int(pollInterval * 1000)))
            return true
        }
        let rejected = todo.filter { $0.uploadState == .rejected }
        let (documents, reupload) = rejected.isEmpty ? (todo, false) : (rejected, true)
        while true {
            var files: [DocumentImageFile] = []
            for document in documents {
                for side in document.type.sides ?? [] {
                    let what = reupload ? "new image of the \(document.type) \(side.rawValue.lowercased())" : "\(document.type) \(side.rawValue.lowercased()) image"
                    guard let path = ask("File of the \(what): ") else { return false }
                    files.append(DocumentImageFile(type: document.type, side: side, path: path.trimmingCharacters(in: .whitespaces)))
                }
            }
            do {
                _ = try await process.submitDocuments(files, reupload: reupload)
                Output.line("submitted \(files.count) image\(files.count == 1 ? "" : "s")")
                return true
            } catch let error as VerificationError where [.verificationFileTooLarge, .verificationFileUnreadable, .verificationInvalidDocument].contains(error.code) {
                Output.line("\(error.message); give the files again")
            }
        }
    }

    /// One line from the terminal; nil at end of input.
    private func ask(_ prompt: String) -> String? {
        Output.flush()
        FileHandle.standardOutput.write(Data(prompt.utf8))
        return readLine()
    }

    static func isYes(_ answer: String) -> Bool {
        ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
