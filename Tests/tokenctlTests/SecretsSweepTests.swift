import Foundation
import TestSupport
import Testing

/// Every command, run with trace logging, a known bearer token and known identifiers:
/// the token never appears in stdout or stderr (logs included), and the serial number and
/// device account identifier appear only masked unless `--reveal` is given (`wallet
/// export` is a backup and writes them whole). Also: the database files are owner-only,
/// and a loose token file is refused with the fix.
@Suite struct SecretsSweepTests {
    static let token = "tmpBearer-7Q2xK9vLw3ZpR8sT1mN4"
    static let serial = "SNSWEEP0123456789"
    static let account = "DAPLSWEEP9876543210"
    static let batchSerial = "SNSWEEPBATCH55555"
    static let batchAccount = "DAPLSWEEPBATCH4444"
    static let identifiers = [serial, account, batchSerial, batchAccount]

    let harness: ActivationHarness
    var cli: CLI

    init() async throws {
        harness = try await ActivationHarness.start()
        cli = harness.cli
        let tokenFile = cli.write("tmp.token", Self.token + "\n")
        chmod(tokenFile, 0o600)
        cli.environment["TOKENCTL_TMP_AUTH_BEARER_TOKEN_FILE"] = tokenFile
        cli.environment["TOKENCTL_LOG_LEVEL"] = "trace"
    }

    /// Runs a command; checks the token is absent, and the identifiers too unless revealed.
    @discardableResult
    func sweep(
        _ arguments: [String], revealed: Bool = false, stdin: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> CLIResult {
        let result = try cli.run(arguments, stdin: stdin)
        let output = result.stdout + result.stderr
        #expect(
            !output.contains(Self.token), "\(arguments): the bearer token was printed", sourceLocation: sourceLocation)
        if !revealed {
            for identifier in Self.identifiers {
                #expect(
                    !output.contains(identifier),
                    "\(arguments): \(identifier) was printed whole:\n\(output.prefix(2000))",
                    sourceLocation: sourceLocation)
            }
        }
        return result
    }

    @Test func noCommandPrintsTheTokenOrAWholeIdentifier() async throws {
        try await withTeardown({ try await harness.stop() }) {
            let deeplink = "mybank://activate?serialNumber=\(Self.serial)"
            let batchDeeplink = "mybank://activate?serialNumber=\(Self.batchSerial)"
            try sweep([
                "wallet", "add", "--serial", Self.serial, "--device-account-id", Self.account, "--card-suffix", "4321",
            ])
            try sweep([
                "wallet", "import",
                cli.write(
                    "passes.csv", "serialNumber,deviceAccountIdentifier\n\(Self.batchSerial),\(Self.batchAccount)\n"),
                "--json",
            ])
            try sweep([
                "wallet", "import",
                cli.write("bad.csv", "serialNumber,deviceAccountIdentifier\n\(Self.serial),\(Self.account)!\n"),
            ])
            try sweep(["wallet", "add", "--serial", Self.serial, "--device-account-id", Self.batchAccount])
            for format in [[], ["--json"]] {
                try sweep(["wallet", "list"] + format)
                try sweep(["wallet", "show", Self.serial] + format)
                try sweep(["activate", deeplink, "--dry-run"] + format)
                try sweep(["audit", "list"] + format)
            }
            let activated = try sweep(["activate", deeplink, "--json"])
            #expect(activated.outcome == "APPROVED", "\(activated.stderr)")
            #expect(harness.sandbox.requests.first?.header("Authorization") == "Bearer \(Self.token)")
            try sweep(["activate", deeplink])  // already activated
            try sweep(
                ["activate", "--batch", "-", "--json"],
                stdin: batchDeeplink + "\n" + deeplink + "&serialNumber=\(Self.serial)\n")
            try sweep(["activate", "--batch", "-"], stdin: "mybank://activate?serialNumber=\(Self.serial)X\n")
            try sweep(["activate", "mybank://activate?serialNumber=\(Self.serial)&serialNumber=\(Self.serial)"])
            try sweep(["activate", "otherbank://activate?serialNumber=\(Self.serial)", "--json"])
            try sweep(["wallet", "show", Self.account])
            try sweep(["audit", "list", "--serial", Self.serial, "--json"])
            try sweep(["audit", "show", "1"])
            try sweep(["audit", "show", "1", "--json"])
            try sweep(["audit", "export", "--format", "csv"])
            try sweep(["audit", "export", "--format", "jsonl"])
            try sweep(["audit", "verify"])
            try sweep(["onboarding", "status"])
            try sweep(["device", "status"])
            try sweep(["wallet", "remove", Self.batchSerial])
            try sweep(["demo"])
            for command in [
                [], ["activate"], ["wallet"], ["audit"], ["onboarding"], ["device"], ["login"], ["sandbox"], ["demo"],
            ] {
                try sweep(command + ["--help"])
            }
            try sweepSandbox()

            // Revealed output and the backup carry the identifiers whole, never the token: this
            // also shows that the checks above look for text that would be there.
            let revealed = try sweep(["wallet", "list", "--reveal", "--json"], revealed: true)
            #expect(revealed.stdout.contains(Self.serial) && revealed.stdout.contains(Self.account))
            let auditRevealed = try sweep(["audit", "list", "--reveal"], revealed: true)
            #expect(auditRevealed.stdout.contains(Self.account))
            let backup = try sweep(["wallet", "export"], revealed: true)
            #expect(backup.stdout.contains(Self.serial) && backup.stdout.contains(Self.account))
        }
    }

    /// `tokenctl sandbox` runs until stopped: start it, wait for its address, stop it.
    func sweepSandbox() throws {
        let sandbox = try cli.start(["sandbox", "--port", "0"])
        let deadline = ContinuousClock.now + .seconds(10)
        while !((try? String(contentsOfFile: sandbox.outPath, encoding: .utf8)) ?? "").contains("listening"),
            ContinuousClock.now < deadline
        {
            usleep(20_000)
        }
        kill(sandbox.process.processIdentifier, SIGTERM)
        let result = try sandbox.finish()
        #expect(result.stdout.contains("listening http://127.0.0.1:"))
        #expect(!(result.stdout + result.stderr).contains(Self.token))
    }

    @Test func theDatabaseAndItsWriteAheadFilesAreOwnerOnly() async throws {
        try await withTeardown({ try await harness.stop() }) {
            try sweep(["wallet", "add", "--serial", Self.serial, "--device-account-id", "SBXSLOW0001"])
            // While an activation waits for a slow answer, the -wal and -shm files exist.
            let running = try cli.start(
                ["activate", "mybank://activate?serialNumber=\(Self.serial)"],
                environment: ["TOKENCTL_TMP_TIMEOUT_MS": "10000"])
            let deadline = ContinuousClock.now + .seconds(10)
            while harness.sandbox.activationRequestCount == 0 && ContinuousClock.now < deadline { usleep(10_000) }
            for suffix in ["", "-wal", "-shm"] {
                #expect(fileMode(cli.databasePath + suffix) == 0o600, "tokenctl.sqlite\(suffix)")
            }
            kill(running.process.processIdentifier, SIGKILL)
            _ = try running.finish()
            for suffix in ["", "-wal", "-shm"] {
                #expect(fileMode(cli.databasePath + suffix) == 0o600, "after a kill: tokenctl.sqlite\(suffix)")
            }
        }
    }

    @Test func aTokenFileOthersCanReadIsRefusedWithTheFix() async throws {
        try await withTeardown({ try await harness.stop() }) {
            try sweep(["wallet", "add", "--serial", Self.serial, "--device-account-id", Self.account])
            let tokenFile = try #require(cli.environment["TOKENCTL_TMP_AUTH_BEARER_TOKEN_FILE"])
            for mode: mode_t in [0o640, 0o604] {
                chmod(tokenFile, mode)
                let result = try sweep(["activate", "mybank://activate?serialNumber=\(Self.serial)"])
                #expect(result.status == 78)
                #expect(result.stderr.contains("chmod 600 \(tokenFile)"), "\(result.stderr)")
            }
            #expect(harness.sandbox.activationRequestCount == 0)
        }
    }
}
