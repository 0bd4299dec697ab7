import Foundation
import Testing
import WalletModel

@Suite struct JSONObjectTests {
    @Test func keepsKeyOrderAndEscapesPerRFC8259() throws {
        let object = JSONObject([
            "z": .string("quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} é"),
            "a": .int(-3), "m": .bool(true), "n": .null,
            "list": .array([.int(1), .object(JSONObject(["k": .string("v")]))]),
        ])
        let text = object.text
        #expect(text.hasPrefix("{\"z\": "))
        #expect(text.contains("\\u0007") && text.contains("\\u007f") && text.contains("\\n") && text.contains("\\t"))
        // What we print, a JSON parser reads back unchanged.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["z"] as? String == "quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} é")
        #expect(parsed["a"] as? Int == -3)
        #expect(parsed["n"] is NSNull)
        #expect(Array(parsed.keys).count == 5)
    }

    @Test func escapesBidirectionalAndInvisibleCharactersSoATerminalShowsThem() throws {
        let value = "x\u{202E}gpj.exe \u{2066}a\u{2069} \u{85} \u{2028} \u{110BD} 号码 👨‍👩‍👧"
        let text = JSONObject(["device": .string(value)]).text
        #expect(text == #"{"device": "x\u202egpj.exe \u2066a\u2069 \u0085 \u2028 \ud804\udcbd 号码 👨‍👩‍👧"}"#)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(parsed["device"] as? String == value)
    }

    /// The text of each kind of string, plain ASCII (written whole) and not: the audit's
    /// chain hashes this text, so it must not change.
    @Test(arguments: [
        ("SN1000000001", #""SN1000000001""#),
        ("", #""""#),
        ("2026-11-24T07:00:00.000Z", #""2026-11-24T07:00:00.000Z""#),
        ("a \"b\" c", #""a \"b\" c""#),
        ("back\\slash", #""back\\slash""#),
        ("tab\there", #""tab\there""#),
        ("del\u{7F}", #""del\u007f""#),
        ("…1234", #""…1234""#),
        ("é\u{202E}", #""é\u202e""#),
        ("~ !#$%&'()*+,-./:;<=>?@[]^_`{|}", #""~ !#$%&'()*+,-./:;<=>?@[]^_`{|}""#),
    ])
    func writesEachStringExactly(value: String, text: String) {
        #expect(JSONObject(["k": .string(value)]).text == "{\"k\": \(text)}")
    }
}
