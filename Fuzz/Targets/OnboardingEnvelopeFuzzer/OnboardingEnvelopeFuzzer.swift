@testable import OnboardingCore

// libFuzzer entry point for the onboarding envelope decoder (`make fuzz`).
// Properties: decoding never crashes at any HTTP status; it answers an object or an
// OnboardingError whose stable code is one of the documented ones.

private let codes: Set<String> = [
    "onboarding.protocol", "onboarding.serverError", "onboarding.otpInvalid", "onboarding.processFailed",
    "onboarding.resendTooEarly", "onboarding.limitReached",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOnboardingEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    for status in [200, 400, 429, 500] {
        do {
            _ = try OnboardingEnvelope.decode(httpStatus: status, body: body)
            precondition(status == 200, "an OK envelope was accepted with HTTP \(status)")
        } catch {
            precondition(codes.contains(error.code.rawValue), "undocumented code \(error.code.rawValue)")
            precondition(!error.message.isEmpty)
        }
    }
    return 0
}
