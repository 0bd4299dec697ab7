import Foundation

/// The onboarding envelope: `{"requestObject": …}` out, `{"status":"OK","responseObject":…}`
/// or `{"status":"ERROR","responseObject":{"code","message"}}` back.
enum OnboardingEnvelope {
    static func request(_ object: [String: Any]) -> [UInt8] {
        Array(
            (try? JSONSerialization.data(
                withJSONObject: ["requestObject": object], options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    /// The `status` of a body that is a JSON object with one, else nil.
    static func status(of body: [UInt8]) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["status"] as? String
    }

    /// The `responseObject` of an OK answer (empty when absent).
    /// - Throws: ``OnboardingError`` with the contract's reason for anything else.
    static func decode(httpStatus: Int, body: [UInt8]) throws(OnboardingError) -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let status = object["status"] as? String, status == "OK" || status == "ERROR"
        else {
            if httpStatus == 200 {
                throw OnboardingError(
                    .networkInvalidResponseObject, httpStatus: httpStatus,
                    detail: "the answer is not an onboarding envelope")
            }
            throw OnboardingError(
                .networkErrorStatusCode, httpStatus: httpStatus,
                detail: "HTTP \(httpStatus) without an onboarding envelope")
        }
        let responseObject = object["responseObject"]
        if status == "ERROR" {
            let error = responseObject as? [String: Any]
            throw OnboardingError(
                .networkGeneric, httpStatus: httpStatus,
                serverCode: error?["code"] as? String ?? "no error code", serverMessage: error?["message"] as? String,
                remainingAttempts: object["remainingAttempts"] as? Int,
                detail: httpStatus == 200 ? "an ERROR envelope with HTTP 200" : "HTTP \(httpStatus)"
            )
        }
        guard httpStatus == 200 else {
            throw OnboardingError(
                .networkErrorStatusCode, httpStatus: httpStatus, detail: "an OK envelope with HTTP \(httpStatus)")
        }
        if responseObject == nil || responseObject is NSNull { return [:] }
        guard let result = responseObject as? [String: Any] else {
            throw OnboardingError(
                .networkInvalidResponseObject, httpStatus: httpStatus, detail: "responseObject is not an object")
        }
        return result
    }
}
