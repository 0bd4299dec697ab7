import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Names given on the command line (a login device name, a device activation's name) follow
/// the rule of a pass record's device label: ``SafeText/labelRule``.
enum LabelOption {
    static func check(_ value: String?, option: String) throws {
        guard let value, !SafeText.isLabel(value) else { return }
        throw ValidationError("\(option) must be \(SafeText.labelRule)")
    }
}
