// The transparency log's proofs on an open database, in process: the median time of an
// inclusion proof (a random leaf, the whole tree) and of a consistency proof (a random older
// size to the whole tree), and of a tree head, each read from the stored tree.
//
//   TransparencyLogBenchmark <sqlite file | postgresql URL> [proofs]
import Foundation
import TokenActivation
import TokenctlApp
import TokenctlConfiguration
import WalletModel

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(
        Data("usage: TransparencyLogBenchmark <sqlite file | postgresql URL> [proofs]\n".utf8))
    exit(64)
}
let proofs = arguments.count > 2 ? Int(arguments[2]) ?? 1000 : 1000
var environment = ProcessInfo.processInfo.environment
if arguments[1].hasPrefix("postgres") {
    environment["TOKENCTL_DATABASE_URL"] = arguments[1]
} else {
    environment["TOKENCTL_DATABASE_PATH"] = arguments[1]
}
let settings = try await SettingsLoader(environment: environment).load()

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

try await settings.store.using(logger: .init(label: "bench")) { store in
    let tree = AuditTree(store: store)
    let size = try await tree.size()
    precondition(size > 1, "the database holds no audit")
    let clock = ContinuousClock()
    var inclusion: [Double] = [], consistency: [Double] = [], head: [Double] = []
    for _ in 0..<proofs {
        let index = Int64.random(in: 0..<size), older = Int64.random(in: 1..<size)
        inclusion.append(
            milliseconds(try await clock.measure { _ = try await tree.inclusionProof(index: index, size: size) }))
        consistency.append(
            milliseconds(try await clock.measure { _ = try await tree.consistencyProof(from: older, to: size) }))
        head.append(milliseconds(try await clock.measure { _ = try await tree.rootHash(size: older) }))
    }
    print(
        String(
            format:
                "tree of %lld rows, %d of each: inclusion proof %.3f ms, consistency proof %.3f ms, tree head %.3f ms (medians, in process)",
            size, proofs, median(inclusion), median(consistency), median(head)))
}
