import Foundation
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// A file named on the command line, `-` for standard input.
enum InputFile {
    /// - Throws: a usage error naming `option` when the file cannot be read.
    static func read(_ path: String, option: String) throws -> Data {
        guard
            let data = path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        else {
            throw UsageError(message: "\(option) \(SafeText.escaped(path)) cannot be read")
        }
        return data
    }
}
