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
        var worst: Int32 = 0
        try await reportingErrors(json: output.json) {
            let settings = try await global.settings()
            let bar = Output.standardErrorIsTerminal ? ProgressBar(label: "activating") : nil
            let activator = Activator(settings: settings, environment: ProcessInfo.processInfo.environment)
            let input: ImportInput = file == "-" ? .standardInput : .file(file)
            let summary = try await activator.activateBatch(from: input, concurrency: concurrency, progress: { read, total in
                bar?.update(done: read, total: total)
            }) { line, result in
                let code = ExitStatus.code(for: result)
                worst = ExitStatus.mostSevere(worst, code)
                if output.json {
                    var object = JSONObject(["line": .int(line)])
                    object.append(contentsOf: result.json(exitCode: code, reveal: output.reveal))
                    Output.line(object.text)
                }
            }
            bar?.clear()
            if !output.json {
                Output.line(BatchText.summary(summary, exitCode: worst))
            }
        }
        Output.flush()
        if worst != 0 { throw ExitCode(worst) }
    }
}

enum BatchText {
    static func summary(_ summary: BatchSummary, exitCode: Int32) -> String {
        let outcomes = Outcome.allCases.compactMap { outcome in
            summary.outcomes[outcome].map { "\(outcome.rawValue) \($0)" }
        }.joined(separator: ", ")
        var text = "\(summary.lines) line\(summary.lines == 1 ? "" : "s"): \(outcomes.isEmpty ? "none" : outcomes)"
        if !summary.errors.isEmpty {
            text += "\nerrors: " + summary.errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        return text + "\nexit \(exitCode)"
    }
}

/// A progress bar class shared with the batch's @Sendable progress closure.
extension ProgressBar: @unchecked Sendable {}
