import Testing
import WalletModel

@testable import TokenActivation

@Suite struct PassRecordValidationTests {
    static let valid = PassRecordFields(serialNumber: "SN1", deviceAccountIdentifier: "DAPL1234")

    @Test func appliesDefaultsToANewRecord() throws {
        let record = try PassRecordValidation.validate(Self.valid).newRecord
        #expect(
            record
                == PassRecord(
                    passTypeIdentifier: "paymentpass.com.apple", serialNumber: "SN1",
                    deviceAccountIdentifier: "DAPL1234", state: .requiresActivation))
    }

    @Test(arguments: [
        (PassRecordFields.Name.serialNumber, String(repeating: "s", count: 128)),
        (.serialNumber, "ünïcode-✓"),
        (.deviceAccountIdentifier, String(repeating: "A", count: 64)),
        (.passTypeIdentifier, String(repeating: "p", count: 255)),
        (.state, "activated"),
        (.state, "deactivated"),
        (.device, "Apple Watch (45 mm)"),
        (.cardSuffix, "0042"),
        (.cardSuffix, "12345"),
    ])
    func acceptsValuesAtTheLimits(field: PassRecordFields.Name, value: String) throws {
        var fields = Self.valid
        fields[field] = value
        #expect(throws: Never.self) { try PassRecordValidation.validate(fields) }
    }

    @Test(arguments: [
        (PassRecordFields.Name.serialNumber, nil as String?, "serialNumber is required"),
        (.serialNumber, "", "serialNumber is required"),
        (.serialNumber, String(repeating: "s", count: 129), "serialNumber must be 1 to 128 bytes"),
        (.serialNumber, String(repeating: "é", count: 65), "serialNumber must be 1 to 128 bytes"),
        (.serialNumber, "SN\u{0}1", "serialNumber must not contain control or bidirectional formatting characters"),
        (.serialNumber, "SN\u{7F}", "serialNumber must not contain control or bidirectional formatting characters"),
        (.deviceAccountIdentifier, nil, "deviceAccountIdentifier is required"),
        (
            .deviceAccountIdentifier, String(repeating: "A", count: 65),
            "deviceAccountIdentifier must be 1 to 64 letters or digits (A-Z, a-z, 0-9)"
        ),
        (
            .deviceAccountIdentifier, "DAPL-1234",
            "deviceAccountIdentifier must be 1 to 64 letters or digits (A-Z, a-z, 0-9)"
        ),
        (
            .deviceAccountIdentifier, "DAPLÄ1234",
            "deviceAccountIdentifier must be 1 to 64 letters or digits (A-Z, a-z, 0-9)"
        ),
        (.passTypeIdentifier, String(repeating: "p", count: 256), "passTypeIdentifier must be 1 to 255 bytes"),
        (.passTypeIdentifier, "", "passTypeIdentifier must be 1 to 255 bytes"),
        (.state, "Activated", "state must be one of requiresActivation, activating, activated, suspended, deactivated"),
        (.state, "unknown", "state must be one of requiresActivation, activating, activated, suspended, deactivated"),
        (.device, "", "device must be 1 to 64 characters without control or bidirectional formatting characters"),
        (
            .device, "Watch\n",
            "device must be 1 to 64 characters without control or bidirectional formatting characters"
        ),
        (
            .device, String(repeating: "d", count: 65),
            "device must be 1 to 64 characters without control or bidirectional formatting characters"
        ),
        (
            .device, "x\u{202E}gpj.exe",
            "device must be 1 to 64 characters without control or bidirectional formatting characters"
        ),
        (
            .device, "Watch\u{2067}",
            "device must be 1 to 64 characters without control or bidirectional formatting characters"
        ),
        (
            .device, "Watch\u{85}",
            "device must be 1 to 64 characters without control or bidirectional formatting characters"
        ),
        (.serialNumber, "SN\u{202E}1", "serialNumber must not contain control or bidirectional formatting characters"),
        (.serialNumber, "SN\u{200B}1", "serialNumber must not contain control or bidirectional formatting characters"),
        (
            .passTypeIdentifier, "pass\u{2028}type",
            "passTypeIdentifier must not contain control or bidirectional formatting characters"
        ),
        (.cardSuffix, "123", "cardSuffix must be 4 or 5 digits"),
        (.cardSuffix, "123456", "cardSuffix must be 4 or 5 digits"),
        (.cardSuffix, "12a4", "cardSuffix must be 4 or 5 digits"),
        (.cardSuffix, "١٢٣٤", "cardSuffix must be 4 or 5 digits"),
    ])
    func rejectsValuesOutsideTheLimits(field: PassRecordFields.Name, value: String?, message: String) throws {
        var fields = Self.valid
        fields[field] = value
        let error = try #require(throws: PassRecordError.self) { try PassRecordValidation.validate(fields) }
        #expect(error.message == message)
        #expect(error.code.rawValue == "wallet.invalidValue")
        if let value, value.count > 3 { #expect(!error.message.contains(value)) }
    }
}
