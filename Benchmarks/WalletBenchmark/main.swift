// Lookups per second by serial number on an open wallet database.
//
//   WalletBenchmark <database> <records> [lookups]
//
// The database must hold serials SN0 … SN<records-1> (Benchmarks/wallet.sh makes it).
import Foundation
import TokenActivation
import TokenctlApp
import TokenctlConfiguration
import WalletModel

let arguments = CommandLine.arguments
guard arguments.count >= 3, let records = Int(arguments[2]), records > 0 else {
    FileHandle.standardError.write(Data("usage: WalletBenchmark <database> <records> [lookups]\n".utf8))
    exit(64)
}
let lookups = arguments.count > 3 ? Int(arguments[3]) ?? 200_000 : 200_000

var settings = Settings.builtIn(environment: ProcessInfo.processInfo.environment)
settings.database.path = arguments[1]
settings.database.createsDirectory = false
let session = try Wallet(settings: settings).openSession()

var generator = SystemRandomNumberGenerator()
let serials = (0..<lookups).map { _ in "SN\(Int.random(in: 0..<records, using: &generator))" }
var found = 0
let clock = ContinuousClock()
let elapsed = try clock.measure {
    for serial in serials {
        found += try session.records(matching: PassQuery(serialNumber: serial)).count
    }
}
try session.close()
precondition(found == lookups, "every generated serial should exist")
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(String(format: "lookups by serial: %d in %.2f s = %.0f lookups/s (%.1f µs each)", lookups, seconds, Double(lookups) / seconds, seconds / Double(lookups) * 1e6))
