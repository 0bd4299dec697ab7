import Foundation
import Sandbox
import TestSupport
import Testing

/// One HTTP answer as curl received it.
struct HTTPAnswer {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: String

    func json() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(body.utf8))
    }

    func object() throws -> [String: Any] {
        try #require(try json() as? [String: Any], "body: \(body)")
    }

    /// The lines of an NDJSON body, parsed.
    func lines() throws -> [[String: Any]] {
        try body.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }
}

/// `tokenctl serve` started through the real binary on a socket in the test's directory,
/// beside the activation harness's wallet and sandbox; requests go through curl.
struct ServiceHarness {
    var activation: ActivationHarness
    let socket: String
    let process: RunningCLI
    /// The `listening …` lines, in order.
    let listening: [String]

    var cli: CLI { activation.cli }
    var sandbox: TMPSandbox { activation.sandbox }

    /// - Parameters:
    ///   - arguments: more `serve` arguments (`--listen 127.0.0.1:0`).
    ///   - listeners: the `listening` lines to wait for.
    static func start(
        backend: Backend = .sqlite, arguments: [String] = [], listeners: Int = 1, environment: [String: String] = [:],
        slowDelay: Duration = .seconds(3), passes: [(String, String)] = [("SN100001", "DAPL00000000000001")]
    ) async throws -> ServiceHarness {
        let activation = try await ActivationHarness.start(slowDelay: slowDelay, backend: backend)
        for (serial, account) in passes { try activation.add(serial, account) }
        return try launch(activation, arguments: arguments, listeners: listeners, environment: environment)
    }

    /// Starts a service on `activation`'s database and sandbox.
    static func launch(
        _ activation: ActivationHarness, socket: String? = nil, arguments: [String] = [], listeners: Int = 1,
        environment: [String: String] = [:]
    ) throws -> ServiceHarness {
        let socket = socket ?? activation.cli.directory.file("s/tokenctl.sock")
        // Slow sandbox answers (SBXSLOW) come well within the TMP timeout.
        let process = try activation.cli.start(
            ["serve", "--socket", socket] + arguments,
            environment: ["TOKENCTL_TMP_TIMEOUT_MS": "15000"].merging(environment) { $1 })
        let listening = try waitForListening(process, count: listeners)
        return ServiceHarness(activation: activation, socket: socket, process: process, listening: listening)
    }

    /// Polls the service's output until `count` `listening` lines are there.
    static func waitForListening(_ process: RunningCLI, count: Int) throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let lines = ((try? String(contentsOfFile: process.outPath, encoding: .utf8)) ?? "").split(separator: "\n")
                .map(String.init)
            if lines.filter({ $0.hasPrefix("listening ") }).count >= count { return lines }
            if !process.process.isRunning {
                let result = try process.finish()
                Issue.record("serve exited \(result.status) before listening: \(result.stderr)")
                throw ServiceHarnessError.notListening
            }
            usleep(10_000)
        }
        process.process.terminate()
        throw ServiceHarnessError.notListening
    }

    /// The TCP base URL of the `index`th TCP listener (`http://127.0.0.1:PORT`).
    func tcpURL(_ index: Int = 0) throws -> String {
        let urls = listening.filter { $0.hasPrefix("listening http") }.map { String($0.dropFirst("listening ".count)) }
        return try #require(urls.count > index ? urls[index] : nil)
    }

    /// One request with curl: over the Unix socket, or to `url` when given.
    func request(
        _ method: String, _ path: String, body: String? = nil, contentType: String? = "application/json",
        headers: [String] = [], url: String? = nil, extra: [String] = []
    ) throws -> HTTPAnswer {
        try Self.curl(
            cli: cli, socket: url == nil ? socket : nil, method, (url ?? "http://localhost") + path, body: body,
            contentType: contentType, headers: headers, extra: extra)
    }

    static func curl(
        cli: CLI, socket: String?, _ method: String, _ url: String, body: String? = nil,
        contentType: String? = "application/json",
        headers: [String] = [], extra: [String] = []
    ) throws -> HTTPAnswer {
        let id = UUID().uuidString
        let headerFile = cli.directory.file("\(id).headers"), bodyFile = cli.directory.file("\(id).body")
        var arguments = [
            "-s", "-S", "--max-time", "60", "-X", method, "-D", headerFile, "-o", bodyFile, "-w", "%{http_code}",
        ]
        if let socket { arguments += ["--unix-socket", socket] }
        if let contentType { arguments += ["-H", "Content-Type: \(contentType)"] }
        for header in headers { arguments += ["-H", header] }
        if let body { arguments += ["--data-binary", "@" + cli.write("\(id).request", body)] }
        let result = try cli.run(executable: "/usr/bin/curl", arguments + extra + [url])
        try #require(result.status == 0, "curl failed: \(result.stderr)")
        var headerMap: [String: String] = [:]
        for line in (try String(contentsOfFile: headerFile, encoding: .utf8)).split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headerMap[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return HTTPAnswer(
            status: Int(result.stdout) ?? 0, headers: headerMap,
            body: try String(contentsOfFile: bodyFile, encoding: .utf8))
    }

    /// `POST /v1/activations` for a serial.
    func activate(_ serial: String, headers: [String] = [], dryRun: Bool = false) throws -> HTTPAnswer {
        let body =
            dryRun
            ? #"{"deeplink": "mybank://activate?serialNumber=\#(serial)", "dryRun": true}"#
            : #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#
        return try request("POST", "/v1/activations", body: body, headers: headers)
    }

    /// The names of the service's threads, as `ps -L` shows them.
    func threadNames() throws -> [String] {
        let tasks = "/proc/\(process.process.processIdentifier)/task"
        return try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap {
            try? String(contentsOfFile: "\(tasks)/\($0)/comm", encoding: .utf8)
        }.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// Sends `signal` and waits for the service to exit.
    func stop(_ signal: Int32 = SIGTERM) throws -> CLIResult {
        kill(process.process.processIdentifier, signal)
        return try process.finish()
    }

    /// Stops the service (if still running) and the sandbox.
    func shutdown() async throws {
        if process.process.isRunning { _ = try stop() }
        try await activation.stop()
    }
}

enum ServiceHarnessError: Error {
    case notListening
}

/// Work started on a thread of its own at once (not as a task, which could wait for a
/// cooperative thread that blocking tests hold), joined later.
final class Background<T: Sendable>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread {
            self.result = Result { try body() }
            self.done.signal()
        }.start()
    }

    /// Blocks until the work is done.
    func join() throws -> T {
        done.wait()
        return try result!.get()
    }
}
