import Foundation
import TestSupport
import Testing

/// A full disk under the SQLite file while activations are at TMP (DESIGN §3, §8): the
/// answers report what TMP answered, the unwritten audit rows are written as soon as space
/// is back, and nothing is left open. Needs root for the small tmpfs.
@Suite struct ServiceFullDiskTests {
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root (CI runs as root)"))
    func answersAreReportedAndWrittenOnceTheDiskHasSpaceAgain() async throws {
        let harness = try await ActivationHarness.start(slowDelay: .seconds(2))
        try await withTeardown({ try await harness.stop() }) {
            var activation = harness
            let mount = activation.cli.directory.file("small")
            try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
            let mounted = try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mount])
            try #require(mounted.status == 0, "\(mounted.output)")
            defer { _ = try? runProgram("/bin/umount", ["-l", mount]) }
            activation.cli.environment["TOKENCTL_DATABASE_PATH"] = mount + "/tokenctl.sqlite"
            let serials = (1...6).map { "SN77000\($0)" }
            for (index, serial) in serials.enumerated() { try activation.add(serial, "SBXSLOW000\(index + 1)") }

            let service = try ServiceHarness.launch(activation)
            let socket = service.socket, cli = service.cli
            let requests = serials.map { serial in
                Background {
                    try ServiceHarness.curl(
                        cli: cli, socket: socket, "POST", "http://localhost/v1/activations",
                        body: #"{"deeplink": "mybank://activate?serialNumber=\#(serial)"}"#)
                }
            }
            activation.waitForRequests(6)
            // Fill the disk while the six are at TMP.
            let filler = mount + "/filler"
            _ = try runProgram("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k"])
            // Every answer is TMP's; those whose "finished" row the full disk refused say so. A
            // group of writes that failed leaves the write-ahead log grown, so a later group
            // can fit in the space it freed: at least one was refused, not every one.
            var warned = 0
            for request in requests {
                let answer = try request.join()
                #expect(answer.status == 200, "\(answer.body)")
                let object = try answer.object()
                #expect(object["outcome"] as? String == "APPROVED")
                let warnings = object["warnings"] as? [String] ?? []
                #expect(warnings.allSatisfy { $0.contains("could not be written to the audit yet") })
                if !warnings.isEmpty { warned += 1 }
            }
            #expect(warned >= 1)
            // Space again: within a few seconds every pass is activated and its attempt closed.
            try FileManager.default.removeItem(atPath: filler)
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline,
                try serials.contains(where: { try activation.state($0) != ["activated"] })
            {
                try await Task.sleep(for: .milliseconds(200))
            }
            for serial in serials { #expect(try activation.state(serial) == ["activated"]) }
            let again = try service.activate(serials[0])
            #expect(try again.object()["outcome"] as? String == "ALREADY_ACTIVATED")
            let stopped = try service.stop()
            #expect(stopped.status == 0)
            #expect(stopped.stderr.contains("activation.finishNotWritten"))
            let entries = try activation.auditEntries()
            #expect(entries.filter { $0["outcome"] as? String == "APPROVED" }.count == 6)
            #expect(entries.allSatisfy { $0["outcome"] is String })
            #expect(activation.sandbox.activationRequestCount == 6)
        }
    }
}
