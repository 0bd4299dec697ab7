import Testing
import WalletModel

@testable import TokenActivation

@Suite struct DeeplinkParserTests {
    static let base = "mybank://activate?serialNumber="
    static let s128 = String(repeating: "S", count: 128)
    static let s129 = String(repeating: "S", count: 129)
    static let s2048 = String(repeating: "S", count: 2048)
    static let y2020 = String(repeating: "y", count: 2020)
    static let e64 = String(repeating: "%C3%A9", count: 64)
    static let e65 = String(repeating: "%C3%A9", count: 65)
    static let p256 = String(repeating: "p", count: 256)
    static let parser = DeeplinkParser(
        formats: ["mybank://activate", "otherbank://wallet/activate", "port://host:8080"].compactMap(
            DeeplinkFormat.init))

    static let accepted: [(String, String, String?, String?)] = [
        ("mybank://activate?serialNumber=SN123", "SN123", nil, nil),
        ("MYBANK://ACTIVATE?serialNumber=SN123", "SN123", nil, nil),
        ("MyBank://Activate/?serialNumber=SN123", "SN123", nil, nil),
        ("mybank://activate/?serialNumber=SN123", "SN123", nil, nil),
        ("otherbank://wallet/activate?serialNumber=SN123", "SN123", nil, nil),
        ("OTHERBANK://WALLET/activate?serialNumber=SN123", "SN123", nil, nil),
        ("port://host:8080?serialNumber=SN123", "SN123", nil, nil),
        ("mybank://activate?serialNumber=SN+1", "SN+1", nil, nil),
        ("mybank://activate?serialNumber=SN%2B1", "SN+1", nil, nil),
        ("mybank://activate?serialNumber=SN%2b1", "SN+1", nil, nil),
        ("mybank://activate?serialNumber=SN%201", "SN 1", nil, nil),
        ("mybank://activate?serialNumber=%C3%A9t%C3%A9", "été", nil, nil),
        ("mybank://activate?serialNumber=a%3Db%26c", "a=b&c", nil, nil),
        ("mybank://activate?serial%4Eumber=SN1", "SN1", nil, nil),
        ("mybank://activate?serialNumber=SN1&utm_source=mail", "SN1", nil, nil),
        ("mybank://activate?foo&serialNumber=SN1&bar=", "SN1", nil, nil),
        ("mybank://activate?&&serialNumber=SN1&&", "SN1", nil, nil),
        ("mybank://activate?serialnumber=X&serialNumber=SN1", "SN1", nil, nil),
        (
            "mybank://activate?serialNumber=SN1&passTypeIdentifier=paymentpass.com.apple", "SN1",
            "paymentpass.com.apple", nil
        ),
        ("mybank://activate?passTypeIdentifier=pass.x%2Fy&serialNumber=SN1", "SN1", "pass.x/y", nil),
        ("mybank://activate?serialNumber=SN1&action=verify", "SN1", nil, "verify"),
        ("mybank://activate?action=verify&serialNumber=SN1&passTypeIdentifier=p", "SN1", "p", "verify"),
        (base + s128, s128, nil, nil),
        (base + e64, String(repeating: "é", count: 64), nil, nil),
        ("mybank://activate?serialNumber=SN=1", "SN=1", nil, nil),
        ("mybank://activate?serialNumber=SN'(1)*!$,;:@/?", "SN'(1)*!$,;:@/?", nil, nil),
    ]

    @Test(arguments: accepted)
    func accepts(deeplink: String, serial: String, passType: String?, action: String?) throws {
        let parsed = try Self.parser.parse(deeplink)
        #expect(parsed.serialNumber == serial)
        #expect(parsed.passTypeIdentifier == passType)
        #expect(parsed.action == action)
        // printing and parsing again gives the same deeplink
        #expect(try Self.parser.parse(parsed.canonicalText) == parsed)
    }

    static let rejected: [(String, DeeplinkError.Reason)] = [
        ("mybank://activate?serialNumber=SN1&serialNumber=SN2", .duplicateParameter),
        ("mybank://activate?serialNumber=SN1&serial%4Eumber=SN1", .duplicateParameter),
        ("mybank://activate?serialNumber=SN1&action=verify&action=verify", .duplicateParameter),
        ("mybank://activate?serialNumber=SN1&passTypeIdentifier=a&passTypeIdentifier=a", .duplicateParameter),
        ("mybank://activate?serialnumber=SN1", .missingSerialNumber),
        ("mybank://activate?SerialNumber=SN1", .missingSerialNumber),
        ("mybank://activate", .missingSerialNumber),
        ("mybank://activate?", .missingSerialNumber),
        ("mybank://activate?serialNumber=", .emptySerialNumber),
        ("mybank://activate?serialNumber", .emptySerialNumber),
        ("mybank://activate?serialNumber=SN1#frag", .fragment),
        ("mybank://activate?serialNumber=SN1#", .fragment),
        (base + s129, .serialTooLong),
        (base + e65, .serialTooLong),
        (base + s2048, .tooLong),
        (base + "SN1&x=" + y2020, .tooLong),
        ("mybank://activate?serialNumber=SN%001", .controlCharacter),
        ("mybank://activate?serialNumber=SN%0A", .controlCharacter),
        ("mybank://activate?serialNumber=SN%7F", .controlCharacter),
        ("mybank://activate?serialNumber=SN%E2%80%AE1", .controlCharacter),
        ("mybank://activate?serialNumber=SN%E2%81%A61", .controlCharacter),
        ("mybank://activate?serialNumber=SN%C2%851", .controlCharacter),
        ("mybank://activate?serialNumber=SN\n1", .invalidCharacter),
        ("mybank://activate?serialNumber=SN 1", .invalidCharacter),
        ("mybank://activate?serialNumber=été", .invalidCharacter),
        ("mybank://activate?serialNumber=SN\"1", .invalidCharacter),
        ("mybank://activate?serialNumber=SN<1>", .invalidCharacter),
        ("mybank://activate?serialNumber=%FF", .invalidUTF8),
        ("mybank://activate?serialNumber=%C3", .invalidUTF8),
        ("mybank://activate?serialNumber=%ED%A0%80", .invalidUTF8),
        ("mybank://activate?serialNumber=SN%G1", .invalidPercentEncoding),
        ("mybank://activate?serialNumber=SN%2", .invalidPercentEncoding),
        ("mybank://activate?serialNumber=SN%", .invalidPercentEncoding),
        ("mybank://activate?x=%zz&serialNumber=SN1", .invalidPercentEncoding),
        ("otherbank://activate?serialNumber=SN1", .formatMismatch),
        ("mybank://activate/now?serialNumber=SN1", .formatMismatch),
        ("mybank://activated?serialNumber=SN1", .formatMismatch),
        ("otherbank://wallet/Activate?serialNumber=SN1", .formatMismatch),
        ("otherbank://wallet/activate/?serialNumber=SN1", .formatMismatch),
        ("https://activate?serialNumber=SN1", .formatMismatch),
        ("port://host?serialNumber=SN1", .formatMismatch),
        ("mybank:activate?serialNumber=SN1", .malformed),
        ("mybank:/activate?serialNumber=SN1", .malformed),
        ("1bank://activate?serialNumber=SN1", .malformed),
        ("://activate?serialNumber=SN1", .malformed),
        ("", .malformed),
        ("mybank://activate?serialNumber=SN1&action=", .invalidAction),
        ("mybank://activate?serialNumber=SN1&action=Verify", .invalidAction),
        ("mybank://activate?serialNumber=SN1&action=activate", .invalidAction),
        ("mybank://activate?serialNumber=SN1&passTypeIdentifier=", .invalidPassType),
        (base + "SN1&passTypeIdentifier=" + p256, .invalidPassType),
        ("mybank://activate?serialNumber=SN1&passTypeIdentifier=%FF", .invalidUTF8),
        ("mybank://activate?serialNumber=SN1&passTypeIdentifier=a%09b", .controlCharacter),
    ]

    @Test(arguments: rejected)
    func rejects(deeplink: String, reason: DeeplinkError.Reason) throws {
        let error = try #require(throws: DeeplinkError.self) { try Self.parser.parse(deeplink) }
        #expect(error.reason == reason, "\(error.message)")
        #expect(error.code.rawValue == "deeplink." + reason.rawValue)
        #expect(!error.message.contains("SN1"), "never echo the deeplink")
    }

    @Test(arguments: ["mybank://activate", "MyBank://Activate/", "bank+x.y-z://h/a/b", "mybank://host:8080/path"])
    func formatsParse(text: String) throws {
        #expect(DeeplinkFormat(text) != nil)
    }

    @Test(arguments: ["mybank", "mybank://", "mybank://activate?x=1", "://activate", "mybank:activate"])
    func badFormatsAreRejected(text: String) {
        #expect(DeeplinkFormat(text) == nil)
    }
}
