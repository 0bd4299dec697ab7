import Foundation
import Sandbox
import TestSupport
import Testing

/// Identity verification through the real binary: the sandbox runs its background steps at
/// once (interval 0) unless a test asks otherwise.
extension DeviceHarness {
    static let credentials = #"{"email":"alice@example.com","birthDate":"1990-01-31"}"#

    @discardableResult
    func verification(
        _ arguments: String..., stdin: String? = nil, environment: [String: String] = [:]
    ) throws -> CLIResult {
        try cli.run(["verification"] + arguments, stdin: stdin, environment: environment)
    }

    /// The state `verification status --json` names.
    func verificationState() throws -> String? {
        try verification("status", "--json").object["state"] as? String
    }

    /// Onboards alice (start, the sandbox's OTP, activate); returns the process id.
    func onboard() throws -> String {
        let started = try onboarding("start", "--credentials", Self.credentials, "--json")
        let processID = try #require(started.object["processId"] as? String, "\(started.stderr)")
        let otp = try #require(sandbox.onboarding.otp(processID))
        let activated = try onboarding("activate", "--otp", otp, "--pin-file", pinFile, "--json")
        #expect(activated.object["flags"] as? [String] == ["VERIFICATION_PENDING"], "\(activated.stderr)")
        return processID
    }

    /// A document image file: JPEG markers around `marker` (a sandbox marker such as
    /// `SBXREJECT`, or nothing) padded to `bytes`.
    func image(_ name: String, marker: String = "", bytes: Int = 256) throws -> String {
        var data = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("\(name) \(marker) ".utf8)
        data += Data(repeating: 0x20, count: max(0, bytes - data.count - 2)) + Data([0xFF, 0xD9])
        let path = cli.directory.file(name)
        #expect(FileManager.default.createFile(atPath: path, contents: data))
        return path
    }

    /// Consent, document types, the three images, and status: the state after the server's
    /// document checks (`presenceCheck` with the sandbox's defaults).
    func submitDocuments(front: String = "", back: String = "", passport: String = "") throws -> String? {
        #expect(try verificationState() == "intro")
        #expect(try verification("consent", "--approve").status == 0)
        #expect(try verification("documents", "select", "ID_CARD", "PASSPORT").status == 0)
        let submitted = try verification(
            "documents", "submit", "--id-card-front", image("front.jpg", marker: front), "--id-card-back",
            image("back.jpg", marker: back),
            "--passport", image("passport.jpg", marker: passport), "--json"
        )
        #expect(submitted.object["state"] as? String == "processing", "\(submitted.stderr)")
        return try verificationState()
    }

    /// The whole verification with the right OTP; the process is then FINISHED.
    func verifyIdentity(_ processID: String) throws {
        #expect(try submitDocuments() == "presenceCheck")
        #expect(try verification("presence-check", "start").status == 0)
        #expect(try verification("presence-check", "done").status == 0)
        #expect(try verificationState() == "otp")
        let otp = try #require(sandbox.onboarding.verificationOTP(processID))
        #expect(try verification("otp", "verify", otp).status == 0)
        #expect(try verificationState() == "success")
    }
}
