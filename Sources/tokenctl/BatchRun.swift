import ErrorCodes
import ArgumentParser
import Foundation
import TokenActivation

/// `tokenctl activate --batch`: JSON Lines in input order, or a summary.
struct BatchRun {
    let file: String
    let concurrency: Int
    let output: OutputOptions
    let global: GlobalOptions

    func run() async throws {
        var worst = ExitStatus.success
        try await reportingErrors(json: output.json) {
            let settings = try await global.settings()
            let bar = Output.standardErrorIsTerminal ? ProgressBar(label: "activating") : nil
            let activator = Activator(settings: settings, environment: ProcessInfo.processInfo.environment)
            let input: ImportInput = file == "-" ? .standardInput : .file(file)
            let summary = try await activator.activateBatch(from: input, concurrency: concurrency, progress: { read, total in
                bar?.update(done: read, total: total)
            }) { line, result in
                worst = ExitStatus.mostSevere(worst, result.exitStatus)
                if output.json {
                    var object = JSONObject(["line": .int(line)])
                    object.append(contentsOf: result.json(reveal: output.reveal, message: result.error.map(NextStepText.message)))
                    Output.line(object.text)
                }
            }
            bar?.clear()
            if !output.json {
                Output.line(BatchText.summary(summary, exitCode: worst.rawValue))
            }
        }
        Output.flush()
        if worst != .success { throw ExitCode(worst.rawValue) }
    }
}

enum BatchText {
    static func summary(_ summary: BatchSummary, exitCode: Int32) -> String {
        let outcomes = Outcome.allCases.compactMap { outcome in
            summary.outcomes[outcome].map { "\(outcome.rawValue) \($0)" }
        }.joined(separator: ", ")
        var text = "\(summary.lines) line\(summary.lines == 1 ? "" : "s"): \(outcomes.isEmpty ? "none" : outcomes)"
        if !summary.errors.isEmpty {
            text += "\nerrors: " + summary.errors.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
        }
        return text + "\nexit \(exitCode)"
    }
}

/// A progress bar class shared with the batch's @Sendable progress closure.
extension ProgressBar: @unchecked Sendable {}
