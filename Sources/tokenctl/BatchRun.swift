import ArgumentParser
import ErrorCodes
import Foundation
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// `tokenctl activate --batch`: JSON Lines in input order, or a summary.
struct BatchRun {
    let file: String
    let concurrency: Int
    let dryRun: Bool
    let output: OutputOptions
    let global: GlobalOptions

    func run() async throws {
        var worst = ExitStatus.success
        var stoppedBy: Int32?
        try await reportingErrors(json: output.json) {
            let settings = try await global.settings()
            let bar = Output.standardErrorIsTerminal ? ProgressBar(label: "activating") : nil
            let ticker = bar.map { bar in
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(200))
                        bar.tick()
                    }
                }
            }
            let interrupt = InterruptHandler(
                firstMessage:
                    "interrupted: no further lines are read; the requests in flight finish (a second signal abandons them)"
            )
            defer { interrupt.cancel() }
            let activator = Activator(settings: settings, environment: ProcessInfo.processInfo.environment)
            let input: ImportInput = file == "-" ? .standardInput : .file(file)
            let summary = try await activator.activateBatch(
                from: input, concurrency: concurrency,
                progress: { read, total in
                    bar?.update(done: read, total: total)
                }, dryRun: dryRun, stop: interrupt.stop
            ) { line, result in
                worst = ExitStatus.mostSevere(worst, result.exitStatus)
                for warning in result.warnings { Output.error("warning: line \(line): \(warning)") }
                if !output.json && dryRun {
                    Output.line("line \(line): " + ActivationText.line(result, reveal: output.reveal))
                }
                if output.json {
                    var object = JSONObject(["line": .int(line)])
                    object.append(
                        contentsOf: result.json(reveal: output.reveal, message: result.error.map(NextStepText.message)))
                    Output.line(object.text)
                    // Each line is out as soon as it is in order: an interrupted batch loses none.
                    Output.flush()
                }
            }
            ticker?.cancel()
            bar?.clear()
            stoppedBy = interrupt.exitStatus
            if !output.json {
                Output.line(BatchText.summary(summary, exitCode: stoppedBy ?? worst.rawValue))
            } else if summary.stoppedEarly {
                Output.error(
                    "stopped early: \(summary.lines) line\(summary.lines == 1 ? "" : "s") done; the rest of the input was not read"
                )
            }
        }
        Output.flush()
        if let stoppedBy { throw ExitCode(stoppedBy) }
        if worst != .success { throw ExitCode(worst.rawValue) }
    }
}

enum BatchText {
    static func summary(_ summary: BatchSummary, exitCode: Int32) -> String {
        let outcomes = Outcome.allCases.compactMap { outcome in
            summary.outcomes[outcome].map { "\(outcome.rawValue) \($0)" }
        }.joined(separator: ", ")
        var text = "\(summary.lines) line\(summary.lines == 1 ? "" : "s"): \(outcomes.isEmpty ? "none" : outcomes)"
        if summary.warnings > 0 {
            text +=
                "\nwarnings: \(summary.warnings) line\(summary.warnings == 1 ? "" : "s") closed an unfinished attempt as UNKNOWN before sending again (tokenctl audit list --outcome UNKNOWN)"
        }
        if summary.stoppedEarly { text += "\nstopped early by a signal: the rest of the input was not read" }
        if !summary.errors.isEmpty {
            text +=
                "\nerrors: "
                + summary.errors.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(
                    separator: ", ")
        }
        for (code, step) in summary.nextSteps.sorted(by: { $0.key < $1.key }) {
            text += "\nnext (\(code.rawValue)): \(NextStepText.command(step))"
        }
        return text + "\nexit \(exitCode)"
    }
}
