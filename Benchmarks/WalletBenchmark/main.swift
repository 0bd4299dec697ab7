// Lookups per second by serial number on an open wallet database, awaited from a task of the
// cooperative pool as the service's routes and an activation do: one after another (each a
// hop to one of GRDB's readers and back), then from 8 tasks at once.
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
settings.database.concurrentReaders = 8

var generator = SystemRandomNumberGenerator()
let serials = (0..<lookups).map { _ in "SN\(Int.random(in: 0..<records, using: &generator))" }
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let store = try await settings.store.open(logger: Logger(label: "bench"))
// Top-level code runs on the main actor, whose wake-ups cost more: the lookups run in a task.
let (found, serial) = try await Task.detached { [serials] () throws -> (Int, Double) in
    var found = 0
    let start = ContinuousClock.now
    for serial in serials {
        found += try await store.passes(matching: PassQuery(serialNumber: serial)).count
    }
    return (found, seconds(ContinuousClock.now - start))
}.value
precondition(found == lookups, "every generated serial should exist")
print(
    String(
        format: "lookups by serial: %d in %.2f s = %.0f lookups/s (%.1f µs each)", lookups, serial,
        Double(lookups) / serial, serial / Double(lookups) * 1e6))

let (concurrentFound, concurrent) = try await Task.detached { [serials] () throws -> (Int, Double) in
    let start = ContinuousClock.now
    let found = try await withThrowingTaskGroup(of: Int.self) { group in
        for part in 0..<8 {
            group.addTask { [serials] in
                var found = 0
                for serial in serials[(part * lookups / 8)..<((part + 1) * lookups / 8)] {
                    found += try await store.passes(matching: PassQuery(serialNumber: serial)).count
                }
                return found
            }
        }
        var found = 0
        for try await part in group { found += part }
        return found
    }
    return (found, seconds(ContinuousClock.now - start))
}.value
try await store.close()
precondition(concurrentFound == lookups, "every generated serial should exist")
print(
    String(
        format: "the same from 8 tasks at once: %.0f lookups/s (%.2f× one after another)",
        Double(lookups) / concurrent, serial / concurrent))
