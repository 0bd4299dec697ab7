import ArgumentParser
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Administer wallet pass records (serial number → device account identifier).",
        discussion: """
            Identifiers (serial number, device account identifier) are masked as first 4 … last 4 \
            in human and --json output unless --reveal is given; `wallet export` always writes \
            whole values (it is a backup).
            """,
        subcommands: [
            WalletAdd.self, WalletShow.self, WalletList.self, WalletRemove.self, WalletImport.self, WalletExport.self,
        ]
    )
}

/// Options that select pass records by serial number.
struct PassSelection: ParsableArguments {
    @Argument(help: "The pass serial number.")
    var serial: String

    @Option(
        name: .customLong("device"),
        help: ArgumentHelp("Only the pass with this device label (e.g. iPhone, Watch).", valueName: "label"))
    var device: String?

    @Option(name: .customLong("pass-type-id"), help: ArgumentHelp("Only passes of this pass type.", valueName: "id"))
    var passType: String?

    var query: PassQuery {
        PassQuery(serialNumber: serial, passTypeIdentifier: passType, device: device)
    }
}

/// `--json` and `--reveal`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Show identifiers whole instead of masked.")
    var reveal = false
}
