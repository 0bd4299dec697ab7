import Foundation
import PowerAuth
import Sandbox
import TestSupport
import Testing

/// PowerAuth 3.2 end to end: the real binary against the sandbox's server side.
@Suite struct DeviceCommandTests {
    @Test func customActivationThenSignedAndTokenRequests() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let id = try harness.activate()
            #expect(harness.server.activationCount == 1)
            #expect(harness.server.activationFlags(id) == [])

            let status = try harness.status()
            #expect(status["state"] as? String == "ACTIVE")
            #expect(status["failedAttempts"] as? Int == 0)
            #expect(status["counterDistance"] as? Int == 0)
            #expect((status["fingerprint"] as? String)?.count == 8)

            // 1FA and 2FA signed requests are accepted by the server …
            let possession = try harness.device("request", "/pa/v3/signature/validate")
            #expect(possession.status == 0, "\(possession.stderr)")
            #expect(possession.stdout == #"{"status":"OK"}"# + "\n", "a real server answers the status only")
            let twoFactor = try harness.device(
                "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file", harness.pinFile)
            #expect(twoFactor.status == 0, "\(twoFactor.stderr)")
            // … and the counters stayed in step.
            #expect(try harness.status()["counterDistance"] as? Int == 0)

            // A token made with a signed, encrypted request authenticates a request.
            let token = try harness.device("token", "--json")
            #expect(token.status == 0, "\(token.stderr)")
            let byToken = try harness.device("request", "/pa/v3/token/validate", "--auth", "token")
            #expect(byToken.status == 0, "\(byToken.stderr)")
            #expect(byToken.stdout.contains(id))

            // What is stored: the knowledge key only under the PIN, no PIN anywhere.
            let dump = try harness.cli.run(
                executable: "/usr/bin/env",
                [
                    "sqlite3", harness.cli.databasePath,
                    "SELECT hex(knowledge_key_encrypted), length(knowledge_key_salt), knowledge_key_iterations, counter FROM powerauth_activation",
                ])
            let fields = dump.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|")
            #expect(fields.count == 4)
            #expect(fields.first?.count == 32)
            #expect(fields.dropFirst().first == "16")
            #expect(fields.dropFirst(2).first == "210000")
            #expect(fields.last == "3")
            #expect(fileMode(harness.cli.databasePath) == 0o600)
        }
    }

    @Test func wrongPINIsRejectedAndCountedAsSpecified() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let id = try harness.activate()
            let wrong = try harness.device(
                "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file",
                harness.wrongPinFile, "--json")
            #expect(wrong.status == 77)
            let error = try #require(try wrong.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "powerauth.wrongPIN")
            #expect((error["message"] as? String)?.contains("wrong PIN") == true)
            #expect((error["message"] as? String)?.contains("4 attempts left") == true, "\(error)")
            #expect(harness.server.failedAttempts(id) == 1)
            #expect(try harness.status()["failedAttempts"] as? Int == 1)

            // The device moved its counter for the failed signature, the server did not; the
            // next good signature is found in the server's look-ahead window and resets the count.
            let right = try harness.device(
                "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file", harness.pinFile)
            #expect(right.status == 0, "\(right.stderr)")
            #expect(harness.server.failedAttempts(id) == 0)
            #expect(try harness.status()["counterDistance"] as? Int == 0)

            // A possession-only signature never counts against the PIN.
            #expect(try harness.device("request", "/pa/v3/signature/validate").status == 0)

            // Five wrong PINs in a row block the activation; then even the right PIN is refused.
            for _ in 0..<5 {
                #expect(
                    try harness.device(
                        "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file",
                        harness.wrongPinFile
                    ).status == 77)
            }
            let blocked = try harness.status()
            #expect(blocked["state"] as? String == "BLOCKED")
            #expect(blocked["failedAttempts"] as? Int == 5)
            let afterBlock = try harness.device(
                "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file", harness.pinFile)
            #expect(afterBlock.status == 77)
            #expect(afterBlock.stderr.contains("powerauth.blocked"), "\(afterBlock.stderr)")
            #expect(afterBlock.stderr.contains("tokenctl device remove --local"), "\(afterBlock.stderr)")
            // Possession alone is refused too, with the same way out.
            #expect(try harness.device("request", "/pa/v3/signature/validate").stderr.contains("device remove --local"))
        }
    }

    @Test func aTokenRequestWithoutATokenSaysSoAndNamesTheStep() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.activate()
            let result = try harness.device("request", "/api/identity/status", "--auth", "token", "--json")
            #expect(result.status == 66)
            let error = try #require(try result.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "powerauth.noToken")
            #expect((error["message"] as? String)?.contains("tokenctl device token") == true, "\(error)")
            #expect(!(result.stdout + result.stderr).contains("invalidPIN"))
        }
    }

    @Test func flagsComeFromTheStatusResponse() async throws {
        let harness = try await DeviceHarness.start { _, _ in .accept(flags: ["VERIFICATION_PENDING"]) }
        try await withTeardown({ try? await harness.shutdown() }) {
            let id = try harness.activate()
            #expect(try harness.status()["flags"] as? [String] == ["VERIFICATION_PENDING"])
            harness.server.setActivationFlags(id, [])
            #expect(try harness.status()["flags"] as? [String] == [])
        }
    }

    @Test func refusedIdentityAndDuplicateActivation() async throws {
        let harness = try await DeviceHarness.start { attributes, _ in
            attributes["otp"] == "12345678"
                ? .accept(flags: []) : .reject(message: "POWER_AUTH_ACTIVATION_INVALID", remainingAttempts: 4)
        }
        try await withTeardown({ try? await harness.shutdown() }) {
            let refused = try harness.device("activate", "--attribute", "otp=00000000", "--pin-file", harness.pinFile)
            #expect(refused.status == 77)
            #expect(refused.stderr.contains("4 attempts left"))
            #expect(harness.server.activationCount == 0)
            #expect(try harness.device("show").status == 77)

            #expect(
                try harness.device("activate", "--attribute", "otp=12345678", "--pin-file", harness.pinFile).status == 0
            )
            let again = try harness.device("activate", "--attribute", "otp=12345678", "--pin-file", harness.pinFile)
            #expect(again.status == 65)
            #expect(harness.server.activationCount == 1)
        }
    }

    @Test func removeOnTheServerThenLocally() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            _ = try harness.activate()
            // A real server refuses to remove an activation on possession alone …
            let possessionOnly = try harness.device("remove", "--signature-type", "possession", "--json")
            #expect(possessionOnly.status == 77, "\(possessionOnly.stderr)")
            #expect(
                possessionOnly.stderr.contains("POWERAUTH_AUTH_FAIL")
                    && possessionOnly.stderr.contains("(powerauth.authFailed)"))
            #expect(try harness.status()["state"] as? String == "ACTIVE")
            // … so `device remove` signs with the PIN by default.
            #expect(try harness.device("remove", "--pin-file", harness.pinFile).status == 0)
            #expect(try harness.device("status").status == 77)
            _ = try harness.activate()
            #expect(try harness.device("remove", "--local").status == 0)
            #expect(try harness.device("remove", "--local").status == 77)
        }
    }

    @Test func badInputsExitWithTheirCodes() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            // The PIN never comes from an argument; a readable PIN file is refused; no terminal, no PIN.
            #expect(try harness.device("activate", "--attribute", "a=b", "--pin", "1234").status == 64)
            let exposed = try harness.privateFile("exposed-pin", "1234", mode: 0o644)
            #expect(try harness.device("activate", "--attribute", "a=b", "--pin-file", exposed).status == 64)
            #expect(try harness.device("activate", "--attribute", "a=b").status == 64)
            // A directory named as the PIN file is said to be one, not "empty".
            let directory = harness.cli.directory.file("pins")
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let notAFile = try harness.device("activate", "--attribute", "a=b", "--pin-file", directory)
            #expect(notAFile.status == 64)
            #expect(notAFile.stderr.contains("--pin-file \(directory) is not a regular file"), "\(notAFile.stderr)")
            #expect(try harness.device("activate", "--pin-file", harness.pinFile).status == 64)
            #expect(try harness.device("status").status == 77)
            #expect(harness.server.activationCount == 0)

            // A wrong master key: the server cannot decrypt, the client says so (76), nothing is stored.
            var misconfigured = harness.cli
            misconfigured.environment["TOKENCTL_ONBOARDING_POWERAUTH_MASTER_SERVER_PUBLIC_KEY"] =
                PowerAuthServerIdentity.generate().masterPublicKeyBase64
            let wrongKey = try misconfigured.run([
                "device", "activate", "--attribute", "a=b", "--pin-file", harness.pinFile,
            ])
            #expect(wrongKey.status == 76, "\(wrongKey.stderr)")
            #expect(try harness.device("show").status == 77)

            // Missing configuration is a configuration error.
            var unconfigured = harness.cli
            unconfigured.environment["TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_KEY"] = nil
            #expect(
                try unconfigured.run(["device", "activate", "--attribute", "a=b", "--pin-file", harness.pinFile]).status
                    == 78)
            let secretFile = try #require(
                harness.cli.environment["TOKENCTL_ONBOARDING_POWERAUTH_APPLICATION_SECRET_FILE"])
            chmod(secretFile, 0o644)
            #expect(try harness.device("activate", "--attribute", "a=b", "--pin-file", harness.pinFile).status == 78)
        }
    }
}

@Suite struct DevicePINPromptTests {
    /// On a terminal (script(1) gives one) the PIN is asked twice without echo.
    @Test func thePINIsAskedOnATerminalWithoutEcho() async throws {
        let harness = try await DeviceHarness.start()
        try await withTeardown({ try? await harness.shutdown() }) {
            let output = Pipe(), input = Pipe()
            let script = try SpawnedProcess(
                executable: "/usr/bin/script",
                arguments: ["-qec", "\(CLI.binary) device activate --attribute username=typist", "/dev/null"],
                environment: harness.cli.environment, directory: nil,
                standardInput: input.fileHandleForReading.fileDescriptor,
                standardOutput: output.fileHandleForWriting.fileDescriptor,
                standardError: output.fileHandleForWriting.fileDescriptor
            )
            try? output.fileHandleForWriting.close()
            try? input.fileHandleForReading.close()
            // A hung prompt fails the test instead of hanging the run.
            DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if script.isRunning { script.terminate() } }
            var screen = ""
            func waitFor(_ text: String) throws {
                while !screen.contains(text) {
                    let chunk = output.fileHandleForReading.availableData
                    try #require(!chunk.isEmpty, "no \(text) prompt: \(screen)")
                    screen += String(decoding: chunk, as: UTF8.self)
                }
            }
            try waitFor("PIN: ")
            input.fileHandleForWriting.write(Data("7531\n".utf8))
            try waitFor("PIN again: ")
            input.fileHandleForWriting.write(Data("7531\n".utf8))
            screen += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            script.waitUntilExit()
            #expect(script.terminationStatus == 0, "\(screen)")
            #expect(screen.contains("activated "))
            #expect(!screen.contains("7531"))
            #expect(harness.server.activationCount == 1)

            // The PIN typed there is the one that signs.
            let pin = try harness.privateFile("typed-pin", "7531")
            #expect(
                try harness.device(
                    "request", "/pa/v3/signature/validate", "--auth", "possession_knowledge", "--pin-file", pin
                ).status == 0)
        }
    }
}
