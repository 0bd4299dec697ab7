import TokenActivation

/// Prints a list as it streams: a JSON array (one object a line) or a text table with a
/// header and a count, without holding the list in memory.
struct ListPrinter {
    let json: Bool
    private(set) var count = 0

    init(json: Bool, header: String) {
        self.json = json
        if !json { Output.line(header) }
    }

    mutating func add(_ object: @autoclosure () -> JSONObject, text: @autoclosure () -> String) {
        if json {
            Output.write((count == 0 ? "[\n" : ",\n") + object().text)
        } else {
            Output.line(text())
        }
        count += 1
    }

    /// Closes the array, or prints `N <noun>` (`N <plural>` when N ≠ 1).
    func finish(noun: String, plural: String) {
        if json {
            Output.line(count == 0 ? "[]" : "\n]")
        } else {
            Output.line("\(count) \(count == 1 ? noun : plural)")
        }
    }
}
