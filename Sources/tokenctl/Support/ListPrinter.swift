import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Prints a list as it streams: a JSON array (one object a line) or a text table with a
/// header and a count, without holding the list in memory. Nothing is printed before the
/// first record or the end, so a command that fails on opening prints only its error.
struct ListPrinter {
    let json: Bool
    private let header: String
    private(set) var count = 0

    init(json: Bool, header: String) {
        self.json = json
        self.header = header
    }

    mutating func add(_ object: @autoclosure () -> JSONObject, text: @autoclosure () -> String) {
        if json {
            Output.write((count == 0 ? "[\n" : ",\n") + object().text)
        } else {
            if count == 0 { Output.line(header) }
            Output.line(text())
        }
        count += 1
    }

    /// Closes the array, or prints `N <noun>` (`N <plural>` when N ≠ 1).
    func finish(noun: String, plural: String) {
        if json {
            Output.line(count == 0 ? "[]" : "\n]")
        } else {
            if count == 0 { Output.line(header) }
            Output.line("\(count) \(count == 1 ? noun : plural)")
        }
    }
}
