import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

/// The text and JSON of `config show` and `config check`.
enum ConfigText {
    static func lines(_ report: ConfigReport) -> [String] {
        var lines = [
            "configuration file: " + (report.configFile.map(SafeText.escaped) ?? "none (built-in defaults apply)")
        ]
        lines.append(TableCell.pad("KEY", 47) + TableCell.pad("ORIGIN", 13) + "VALUE")
        for entry in report.entries {
            lines.append(TableCell.pad(entry.key, 47) + TableCell.pad(entry.source.kind, 13) + text(entry.value))
        }
        lines.append("secrets (shown only as set or unset):")
        for secret in report.secrets {
            lines.append("  " + TableCell.pad(secret.name, 31) + (secret.from.map { "set, from \($0)" } ?? "unset"))
        }
        return lines
    }

    static func lines(_ results: [ConfigCheck.Result], configFile: String?) -> [String] {
        var lines = [
            "ok    configuration  "
                + (configFile.map { "file \(SafeText.escaped($0))" } ?? "no file, built-in defaults")
        ]
        for result in results {
            if result.errors.isEmpty {
                lines.append("ok    " + TableCell.pad(result.part, 15) + SafeText.escaped(result.detail))
            } else if let reason = result.unusedBecause {
                let codes = result.errors.map(\.code.rawValue).joined(separator: ", ")
                lines.append("skip  " + TableCell.pad(result.part, 15) + "unused: \(reason); warnings: \(codes)")
            }
            for error in result.failures {
                lines.append("FAIL  " + TableCell.pad(result.part, 15) + error.code.rawValue)
            }
        }
        let failures = results.map(\.failures.count).reduce(0, +)
        lines.append(
            failures == 0
                ? "the configuration is usable"
                : "\(failures) \(failures == 1 ? "problem" : "problems") (below on standard error)")
        return lines
    }

    static func json(_ results: [ConfigCheck.Result], configFile: String?) -> JSONObject {
        let checks: [JSONObject.Value] = results.map { result in
            .object(
                JSONObject([
                    "part": .string(result.part), "ok": .bool(result.failures.isEmpty),
                    "unused": .optional(result.unusedBecause),
                    "detail": result.errors.isEmpty ? .string(result.detail) : .null,
                    "error": result.errors.first.map { .object(errorObject($0)) } ?? .null,
                    "errors": .array(result.errors.map { .object(errorObject($0)) }),
                ]))
        }
        return JSONObject([
            "ok": .bool(results.allSatisfy(\.failures.isEmpty)), "configFile": .optional(configFile),
            "checks": .array(checks),
        ])
    }

    private static func text(_ value: JSONObject.Value) -> String {
        switch value {
        case .string(let string): SafeText.escaped(string)
        case .null: "-"
        case .array(let values): values.map(text).joined(separator: ",")
        default: value.text
        }
    }
}
