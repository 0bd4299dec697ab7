import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct SandboxCommandTests {
    /// `tokenctl sandbox` as its own process: the first line names its address, and an
    /// activation against it is counted by its stats endpoint.
    @Test func theSandboxProcessAnnouncesItselfAndCounts() throws {
        var cli = CLI()
        let (process, output) = try SpawnedProcess.reading(CLI.binary, ["sandbox", "--port", "0"])
        defer {
            process.terminate()
            process.waitUntilExit()
        }

        var firstLine = Data()
        while !firstLine.contains(0x0A) {
            let chunk = output.availableData
            try #require(!chunk.isEmpty, "the sandbox exited before announcing itself")
            firstLine += chunk
        }
        let line = String(decoding: firstLine.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(line.hasPrefix("listening http://127.0.0.1:"))
        let url = String(line.dropFirst("listening ".count))
        #expect(Int(url.split(separator: ":").last ?? "") ?? 0 > 0)

        cli.environment["TOKENCTL_TMP_BASE_URL"] = url
        #expect(try cli.run("wallet", "add", "--serial", "SN1", "--device-account-id", "DAPL00001234").status == 0)
        let result = try cli.run("activate", "mybank://activate?serialNumber=SN1")
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try cli.run(executable: "/usr/bin/curl", ["-s", url + "/_sandbox/stats"])
        #expect(stats.stdout == #"{"activationRequests": 1}"#)
    }
}

@Suite struct SandboxPowerAuthConfigurationTests {
    /// The sandbox prints the PowerAuth values and writes a client configuration that
    /// works as printed: a new user can activate a device with it.
    @Test func thePrintedClientConfigurationWorks() throws {
        let cli = CLI()
        let (process, output) = try SpawnedProcess.reading(
            CLI.binary, ["sandbox", "--port", "0", "--powerauth-dir", cli.directory.file("powerauth")])
        defer {
            process.terminate()
            process.waitUntilExit()
        }

        var received = Data()
        while received.filter({ $0 == 0x0A }).count < 3 {
            let chunk = output.availableData
            try #require(!chunk.isEmpty, "the sandbox exited early")
            received += chunk
        }
        let lines = String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("listening http://127.0.0.1:"))
        #expect(lines[1].hasPrefix("powerauth application-key="))
        #expect(lines[1].contains(" master-server-public-key="))
        #expect(
            !lines.joined().contains(
                try String(contentsOfFile: cli.directory.file("powerauth/application-secret"), encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)))
        let prefix = "powerauth client configuration "
        try #require(lines[2].hasPrefix(prefix))
        let config = String(lines[2].dropFirst(prefix.count))
        #expect(fileMode(cli.directory.file("powerauth/application-secret")) == 0o600)
        #expect(fileMode(cli.directory.file("powerauth/server-identity.json")) == 0o600)

        let pin = cli.directory.file("pin")
        #expect(
            FileManager.default.createFile(
                atPath: pin, contents: Data("2468".utf8), attributes: [.posixPermissions: 0o600]))
        let activated = try cli.run([
            "--config", config, "device", "activate", "--attribute", "username=new-user", "--pin-file", pin,
        ])
        #expect(activated.status == 0, "\(activated.stderr)")
        #expect(activated.stdout.hasPrefix("activated "))
        #expect(try cli.run(["--config", config, "device", "status"]).stdout.contains("ACTIVE"))
    }
}

/// The sandbox as an operator meets it: bad ports, a port in use, its secret folder on the
/// way out, and SBXSLOW past the default client timeout.
@Suite struct SandboxOperatorTests {
    func startSandbox(_ cli: CLI, _ arguments: [String] = []) throws -> (RunningCLI, port: Int, directory: String) {
        let running = try cli.start(["sandbox", "--port", "0"] + arguments)
        let deadline = ContinuousClock.now + .seconds(10)
        var text = ""
        while !text.contains("client configuration"), ContinuousClock.now < deadline {
            usleep(20_000)
            text = (try? String(contentsOfFile: running.outPath, encoding: .utf8)) ?? ""
        }
        let port = Int(text.split(separator: "\n").first?.split(separator: ":").last ?? "") ?? 0
        let config =
            text.split(separator: "\n").first { $0.hasPrefix("powerauth client configuration ") }?.dropFirst(
                "powerauth client configuration ".count) ?? ""
        return (running, port, (String(config) as NSString).deletingLastPathComponent)
    }

    @Test(arguments: ["70000", "-1"])
    func aPortOutOfRangeIsAUsageError(port: String) throws {
        for arguments in [["sandbox", "--port=\(port)"], ["sandbox", "--port", port]] {
            let result = try CLI().run(arguments)
            #expect(result.status == 64)
            #expect(
                result.stderr.hasPrefix("tokenctl: --port must be between 0 and 65535 (usage.invalid)"),
                "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPortInUseIsACodedError() throws {
        let cli = CLI()
        let (first, port, _) = try startSandbox(cli)
        defer {
            kill(first.process.processIdentifier, SIGTERM)
            _ = try? first.finish()
        }
        let second = try cli.run("sandbox", "--port", String(port))
        #expect(second.status == 75)
        #expect(second.stderr.contains("sandbox.portInUse"), "\(second.stderr)")
        #expect(!second.stderr.contains("bind("))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func theTemporaryFolderWithTheSecretGoesOnASignal(signal: Int32) throws {
        let cli = CLI()
        let (running, _, directory) = try startSandbox(cli)
        #expect(FileManager.default.fileExists(atPath: directory + "/application-secret"), "\(directory)")
        kill(running.process.processIdentifier, signal)
        let result = try running.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) is left behind")
    }

    @Test func aKeptPowerAuthDirectoryStays() throws {
        let cli = CLI()
        let kept = cli.directory.file("kept")
        let (running, _, directory) = try startSandbox(cli, ["--powerauth-dir", kept])
        #expect(directory == kept)
        kill(running.process.processIdentifier, SIGTERM)
        _ = try running.finish()
        #expect(FileManager.default.fileExists(atPath: kept + "/server-identity.json"))
    }

    /// The temporary folder's path is printed as a path, with no `//` where TMPDIR ends in
    /// a slash.
    @Test func theTemporaryFolderHasAPlainPath() throws {
        var cli = CLI()
        cli.environment["TMPDIR"] = cli.directory.path + "/"
        let (running, _, directory) = try startSandbox(cli)
        #expect(directory.hasPrefix(cli.directory.path + "/tokenctl-sandbox-"), "\(directory)")
        #expect(!directory.contains("//"), "\(directory)")
        kill(running.process.processIdentifier, SIGTERM)
        _ = try running.finish()
    }

    /// SBXSLOW must outlast a client with the default timeout, as documented.
    @Test func theDefaultSlowDelayIsPastTheDefaultClientTimeout() throws {
        let help = try CLI().run("sandbox", "--help").stdout
        let option = try #require(help.range(of: "--slow-delay-ms <slow-delay-ms>\n"))
        let tail = help[option.upperBound...]
        let slow = try #require(
            tail.range(of: #"\(default: \d+\)"#, options: .regularExpression).map {
                Int(tail[$0].filter(\.isNumber)) ?? 0
            })
        let defaults =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Config/tokenctl.json")))
            as? [String: Any]
        let timeout = try #require((defaults?["tmp"] as? [String: Any])?["timeout-ms"] as? Int)
        #expect(slow > timeout, "SBXSLOW waits \(slow) ms, the default client timeout is \(timeout) ms")
    }

    /// A --powerauth-dir that cannot be used is a coded error naming what is wrong (78), not a
    /// raw Foundation or decoding error with exit 1.
    @Test func anUnusablePowerAuthDirectoryIsACodedError() throws {
        let cli = CLI()
        let missingParent = try cli.run("sandbox", "--port", "0", "--powerauth-dir", cli.directory.file("no/such"))
        #expect(missingParent.status == 78)
        #expect(
            missingParent.stderr.hasSuffix(
                "cannot be made: No such file or directory (its parent directory must exist and be writable) (sandbox.stateUnusable)\n"
            ), "\(missingParent.stderr)")

        let file = cli.write("a-file", "x")
        let notADirectory = try cli.run("sandbox", "--port", "0", "--powerauth-dir", file)
        #expect(notADirectory.status == 78)
        #expect(notADirectory.stderr.contains("is a file, not a directory"), "\(notADirectory.stderr)")

        let directory = cli.directory.file("corrupt")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        _ = cli.write("corrupt/server-identity.json", "{\"applicationKey\": 1}")
        let corrupt = try cli.run("sandbox", "--port", "0", "--powerauth-dir", directory)
        #expect(corrupt.status == 78)
        #expect(
            corrupt.stderr.contains(
                "server-identity.json is not a sandbox identity (not the JSON it writes); remove it"),
            "\(corrupt.stderr)")
        for result in [missingParent, notADirectory, corrupt] {
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("tokenctl: "))
        }
    }
}

/// The simulator and the demo are the `tokenctl-sandbox` executable's: the command line that
/// production hosts run does not carry them, and `tokenctl sandbox` / `tokenctl demo` run it.
@Suite struct SandboxExecutableTests {
    static var sandboxBinary: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("tokenctl-sandbox").path
    }

    /// The simulator's types are in tokenctl-sandbox and not in tokenctl (the check finds them
    /// where they are, so it would find them in tokenctl too).
    @Test func theCommandLineDoesNotCarryTheSimulator() throws {
        let simulator = "$s7Sandbox10TMPSandboxC"
        #expect(try Self.contains(Self.sandboxBinary, simulator))
        #expect(try !Self.contains(CLI.binary, simulator))
    }

    /// tokenctl alone (a production host without the sandbox package): the two commands say
    /// what is missing, with their code and exit status, and nothing else changes.
    @Test func withoutTokenctlSandboxTheCommandsNameWhatIsMissing() throws {
        let cli = CLI()
        let alone = cli.directory.file("bin")
        try FileManager.default.createDirectory(atPath: alone, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: CLI.binary, toPath: alone + "/tokenctl")
        for command in [["sandbox", "--port", "0"], ["demo"], ["help", "sandbox"]] {
            let result = try Self.runCopy(cli, alone + "/tokenctl", command)
            #expect(result.status == 69, "\(command): \(result.stderr)")
            #expect(result.stderr.contains("(sandbox.notInstalled)"), "\(command): \(result.stderr)")
            #expect(result.stderr.contains("there is no \(alone)/tokenctl-sandbox"), "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try Self.runCopy(cli, alone + "/tokenctl", ["wallet", "list"]).status == 0)
    }

    /// Runs a binary just copied: a process another test forks while the copy is written
    /// holds its write descriptor until it execs, and the kernel refuses to run a file open
    /// for writing (ETXTBSY, "Text file busy"): tried again until that child has exec'd.
    static func runCopy(_ cli: CLI, _ path: String, _ arguments: [String]) throws -> CLIResult {
        var tries = 0
        while true {
            do {
                return try cli.run(executable: path, arguments)
            } catch let error as NSError where error.domain == NSPOSIXErrorDomain && error.code == Int(ETXTBSY) {
                tries += 1
                if tries == 100 { throw error }
                usleep(20_000)
            }
        }
    }

    /// tokenctl-sandbox started by its own name is `tokenctl sandbox`: its usage errors are
    /// every command's, naming `tokenctl sandbox`; `demo` is its other command.
    @Test func tokenctlSandboxAloneIsTheSandboxCommand() throws {
        let cli = CLI()
        let wrongPort = try cli.run(executable: Self.sandboxBinary, ["--port", "70000"])
        #expect(wrongPort.status == 64)
        #expect(
            wrongPort.stderr.hasPrefix(
                "tokenctl: --port must be between 0 and 65535 (usage.invalid)\nusage: tokenctl sandbox "),
            "\(wrongPort.stderr)")
        let demoHelp = try cli.run(executable: Self.sandboxBinary, ["demo", "--help"])
        #expect(demoHelp.status == 0)
        #expect(demoHelp.stdout.contains("USAGE: tokenctl demo"), "\(demoHelp.stdout)")
        let throughTokenctl = try cli.run(["sandbox", "--port", "70000"])
        #expect(throughTokenctl.stderr == wrongPort.stderr)
    }

    private static func contains(_ path: String, _ text: String) throws -> Bool {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        let needle = Array(text.utf8)
        return bytes.withUnsafeBytes { haystack in
            guard let base = haystack.baseAddress else { return false }
            var offset = 0
            while offset + needle.count <= haystack.count {
                guard let found = memchr(base + offset, Int32(needle[0]), haystack.count - offset - needle.count + 1)
                else { return false }
                offset = base.distance(to: UnsafeRawPointer(found))
                if memcmp(base + offset, needle, needle.count) == 0 { return true }
                offset += 1
            }
            return false
        }
    }
}
