import ArgumentParser
import Foundation
import Sandbox
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TokenctlConfiguration
import WalletModel

/// `tokenctl demo` as tokenctl-sandbox runs it.
enum Demo {
    /// What `tokenctl demo --help` says below the abstract.
    static let discussion = """
        Seeds a temporary database with example passes, starts the sandbox on a free loopback \
        port, activates each example deeplink and prints each outcome next to the documented one. \
        Then the onboarding path: with the user-activation gate on, a token waits; the user starts \
        a process, the OTP is read from the sandbox, the device is activated, verification ends \
        on the sandbox, and the token is activated. Then the PIN login: with the PIN gate on, a \
        token waits; the user registers, confirms from the e-mail, sets a PIN, mistypes it once, \
        logs in, and the token is activated. Last, the audit. Exits 0 when everything is as documented.
        """

    static func run() async throws {
        GlobalOptions.bootstrapLogging()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokenctl-demo-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let sandbox = try await TMPSandbox.start(port: 0)
        var settings = Settings.builtIn(environment: [:])
        settings.database.path = directory + "/tokenctl.sqlite"
        settings.database.createsDirectory = false
        settings.tmp.baseURL = sandbox.baseURL
        Output.line("sandbox TMP at \(sandbox.baseURL); database \(settings.database.path)")

        let passes = directory + "/passes.csv"
        _ = FileManager.default.createFile(atPath: passes, contents: Data(DemoExamples.passes.utf8))
        let imported = try await Wallet(settings: settings).importRecords(from: .file(passes))
        Output.line("imported \(imported.rows) example passes\n")

        var asExpected = 0
        let activator = Activator(settings: settings, environment: [:])
        for example in DemoExamples.deeplinks {
            let result = await activator.activate(deeplink: example.deeplink)
            let exitCode = result.exitStatus.rawValue
            let ok = result.outcome.rawValue == example.outcome && exitCode == example.exitCode
            if ok { asExpected += 1 }
            Output.line(
                "\(ok ? "ok  " : "FAIL") exit \(exitCode) (expected \(example.exitCode))  \(ActivationText.line(result, reveal: false))"
                    + (result.error.map { "  [\($0.code.rawValue)]" } ?? ""))
        }
        Output.line("")
        let onboarding = try await DemoOnboarding(sandbox: sandbox, settings: settings, directory: directory).run()
        let login = try await DemoLogin(sandbox: sandbox, settings: settings).run()

        Output.line("\n\(sandbox.activationRequestCount) requests reached the sandbox\n")
        Output.line(AuditText.header)
        try await Audit(settings: settings).forEach(AuditFilter()) { Output.line(AuditText.row($0, reveal: false)) }
        let (rows, broken) = try await Audit(settings: settings).verify()
        Output.line("\naudit chain: \(broken == nil ? "verified" : "BROKEN"), \(rows) rows")
        Output.line("\(asExpected) of \(DemoExamples.deeplinks.count) outcomes as documented")
        Output.line("\(onboarding.passed) of \(onboarding.steps) onboarding steps as expected")
        Output.line("\(login.passed) of \(login.steps) PIN login steps as expected")
        Output.flush()
        try await sandbox.shutdown()
        if asExpected != DemoExamples.deeplinks.count || onboarding.passed != onboarding.steps
            || login.passed != login.steps || broken != nil
        {
            throw ExitCode(1)
        }
    }
}

/// The demo's data; `Deeplinks/example-passes.csv` and `Deeplinks/example-deeplinks.txt`
/// hold the same (a test keeps them equal).
enum DemoExamples {
    static let passes = """
        serialNumber,deviceAccountIdentifier,passTypeIdentifier,state,device,cardSuffix
        SN1000000001,DAPL4X7Q2M9K00001234,paymentpass.com.apple,requiresActivation,iPhone,1234
        SN1000000002,SBXDECLINED000005678,paymentpass.com.apple,requiresActivation,iPhone,5678
        SN1000000003,SBXFAILED00000009012,paymentpass.com.apple,requiresActivation,iPhone,9012
        SN1000000004,DAPLW8R3T6Y2K0003456,paymentpass.com.apple,activated,iPhone,3456
        SN1000000005,DAPL9Z8Y7X6W00007890,paymentpass.com.apple,suspended,iPhone,7890
        SN2000000006,DAPLQ1W2E3R4T0002468,paymentpass.com.apple,requiresActivation,iPhone,2468
        SN2000000006,DAPLZ9X8C7V6B0002468,paymentpass.com.apple,activated,Watch,2468

        """

    static let deeplinksText = """
        mybank://activate?serialNumber=SN1000000001\tAPPROVED\t0
        mybank://activate?serialNumber=SN1000000002&action=verify\tDECLINED\t2
        mybank://activate?serialNumber=SN1000000003\tFAILED\t3
        mybank://activate?serialNumber=SN1000000004&passTypeIdentifier=paymentpass.com.apple\tALREADY_ACTIVATED\t0
        mybank://activate?serialNumber=SN1000000005\tERROR\t66
        mybank://activate?serialNumber=SN2000000006\tAPPROVED\t0
        mybank://activate?serialNumber=SN1000000001&serialNumber=SN1000000002\tERROR\t65
        mybank://activate?serialNumber=SN9999999999\tERROR\t66

        """

    static var deeplinks: [(deeplink: String, outcome: String, exitCode: Int32)] {
        deeplinksText.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t").map(String.init)
            return (fields[0], fields[1], Int32(fields[2]) ?? -1)
        }
    }
}
