// Lookups per second by serial number on an open wallet database: called on the caller's
// thread (what an activation worker does), and from a task through the driver's threads
// (what the service's routes do), whose difference is a hand-off there and back.
//
//   WalletBenchmark <database> <records> [lookups]
//
// The database must hold serials SN0 … SN<records-1> (Benchmarks/wallet.sh makes it).
import Foundation
import Logging
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
let session = try settings.store.open(logger: Logger(label: "bench"))

var generator = SystemRandomNumberGenerator()
let serials = (0..<lookups).map { _ in "SN\(Int.random(in: 0..<records, using: &generator))" }
var found = 0
let clock = ContinuousClock()
let elapsed = try clock.measure {
    for serial in serials {
        found += try session.passes(matching: PassQuery(serialNumber: serial)).count
    }
}
try session.close()
precondition(found == lookups, "every generated serial should exist")
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}
let direct = seconds(elapsed)
print(
    String(
        format: "lookups by serial: %d in %.2f s = %.0f lookups/s (%.1f µs each)", lookups, direct,
        Double(lookups) / direct, direct / Double(lookups) * 1e6))

// The same lookups awaited one after another, each on the driver's threads, from a task of
// the cooperative pool as the service's routes run (top-level code runs on the main actor,
// whose wake-ups cost more).
let store = try settings.store.open(logger: Logger(label: "bench"))
let (awaitedFound, awaited) = try await Task.detached { [serials] () throws -> (Int, Double) in
    var found = 0
    let start = ContinuousClock.now
    for serial in serials {
        found += try await store.threads.run { try store.passes(matching: PassQuery(serialNumber: serial)).count }
    }
    return (found, seconds(ContinuousClock.now - start))
}.value
try store.close()
precondition(awaitedFound == lookups, "every generated serial should exist")
print(
    String(
        format: "the same from a task, each on the driver's threads: %.1f µs each (a hand-off there and back: %.1f µs)",
        awaited / Double(lookups) * 1e6, (awaited - direct) / Double(lookups) * 1e6))
