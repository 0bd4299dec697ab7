/// The one place where error codes become process exit codes (DESIGN.md §2).
enum ExitStatus {
    static func code(forError code: String) -> Int32 {
        switch code {
        case "storage.busy": 75
        case _ where code.hasPrefix("storage."): 74
        case _ where code.hasPrefix("config."): 78
        case "wallet.notFound", "wallet.ambiguous": 66
        case "wallet.invalidValue", "usage.invalid": 64
        case "wallet.duplicate", "wallet.conflict": 65
        case _ where code.hasPrefix("import."): 65
        default: 70
        }
    }
}
