// libcurl (CurlTransport, one keep-alive handle per worker) against URLSession
// (FoundationNetworking, one session allowing as many connections as workers): the same
// POST to the same server with the same number of concurrent connections.
//
//   TransportBenchmark <endpoint URL> [requests per run] [concurrency …]
import Foundation
import HTTPTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: TransportBenchmark <endpoint URL> [requests] [concurrency …]\n".utf8))
    exit(64)
}
let endpoint = arguments[1]
let requests = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
let levels = arguments.count > 3 ? arguments[3...].compactMap { Int($0) } : [1, 4, 8, 16]
let body = Array(#"{"tokenUniqueReference": "DAPL000000000001"}"#.utf8)

/// Runs `count` requests over `concurrency` workers and returns requests per second.
func rate(concurrency: Int, count: Int, _ send: @escaping @Sendable (Int) async -> Bool) async -> (Double, Int) {
    let start = ContinuousClock.now
    let failures = await withTaskGroup(of: Int.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var failed = 0
                var index = worker
                while index < count {
                    if await !send(worker) { failed += 1 }
                    index += concurrency
                }
                return failed
            }
        }
        return await group.reduce(0, +)
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    return (Double(count) / seconds, failures)
}

func curlRate(concurrency: Int) async throws -> (Double, Int) {
    let transports = try (0..<concurrency).map { _ in
        try CurlTransport(options: CurlTransportOptions(connectTimeoutMilliseconds: 3000, timeoutMilliseconds: 15000))
    }
    let request = HTTPRequest(
        method: "POST", url: endpoint, headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
        body: body)
    return await rate(concurrency: concurrency, count: requests) { worker in
        (try? await transports[worker].send(request))?.status == 200
    }
}

func urlSessionRate(concurrency: Int) async -> (Double, Int) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = concurrency
    configuration.timeoutIntervalForRequest = 15
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    var request = URLRequest(url: URL(string: endpoint)!)
    request.httpMethod = "POST"
    request.httpBody = Data(body)
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let prepared = request
    return await rate(concurrency: concurrency, count: requests) { _ in
        await withCheckedContinuation { continuation in
            session.dataTask(with: prepared) { _, response, error in
                continuation.resume(returning: error == nil && (response as? HTTPURLResponse)?.statusCode == 200)
            }.resume()
        }
    }
}

print(
    String(
        format: "%-12@ %14@ %14@ %8@", "concurrency" as NSString, "libcurl /s" as NSString, "URLSession /s" as NSString,
        "ratio" as NSString))
for concurrency in levels {
    let (curl, curlFailures) = try await curlRate(concurrency: concurrency)
    let (session, sessionFailures) = await urlSessionRate(concurrency: concurrency)
    var line = String(format: "%-12d %14.0f %14.0f %7.2fx", concurrency, curl, session, curl / session)
    if curlFailures + sessionFailures > 0 {
        line += "  (failed: libcurl \(curlFailures), URLSession \(sessionFailures))"
    }
    print(line)
}
