import Dispatch
import ErrorCodes
import Foundation
import TokenActivation

@testable import TokenctlConfiguration

// libFuzzer entry point for the configuration loader (`make fuzz`): the input is written
// as the file named by --config and loaded with SettingsLoader, as every command does.
// Properties: loading never crashes; it fails only with a ConfigurationError (config.*,
// exit 78) that names the file; what it accepts keeps the documented ranges.

/// In memory where the system has /dev/shm: a file on disk costs the kernel's writeback on
/// every input.
private let path: String = {
    let memory = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
    let directory = memory + "tokenctl-fuzz-config-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory + "/config.json"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Written in place (no temporary file, no fsync): the file only has to hold the input.
    do { try Data(bytes: data, count: size).write(to: URL(fileURLWithPath: path)) } catch {
        preconditionFailure("\(error)")
    }
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            outcome.result = .success(try await SettingsLoader(environment: [:]).load(flags: .init(configFile: path)))
        } catch {
            outcome.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    switch outcome.result {
    case .success(let settings):
        precondition(settings.database.busyTimeoutMilliseconds >= 0)
        precondition(settings.tmp.connectTimeoutMilliseconds >= 1 && settings.tmp.timeoutMilliseconds >= 1)
        precondition(settings.tmp.retry.attempts >= 1 && settings.tmp.retry.backoffMilliseconds.allSatisfy { $0 >= 0 })
        precondition(
            !settings.deeplinkFormats.isEmpty
                && settings.deeplinkFormats.allSatisfy { DeeplinkFormat($0.description) == $0 })
        precondition(!settings.onboarding.instanceID.isEmpty)
    case .failure(let error as ConfigurationError):
        precondition(error.code.rawValue.hasPrefix("config."), "code \(error.code.rawValue)")
        precondition(
            error.message.contains(path) || error.message.contains("environment"),
            "the message does not name the file: \(error.message)")
    case .failure(let error):
        preconditionFailure("not a ConfigurationError: \(error)")
    case nil:
        preconditionFailure("no result")
    }
    return 0
}

private final class Outcome: @unchecked Sendable {
    var result: Result<Settings, any Error>?
}
