import Foundation
import Testing
import TextFormats

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

    /// JSON text read into the value and written back: integers stay integers, other numbers
    /// keep their value, nesting, null, booleans and strings survive both ways.
    @Test func aValueReadFromTextWritesTheSameJSONBack() throws {
        let text =
            #"{"id": 42, "ratio": 1.5, "big": -9007199254740993, "tiny": 2.5e-8, "ok": true, "none": null, "#
            + #""name": "Jan \"J\" Nov\u00e1k", "list": [1, [2.25, false], {"k": "v"}], "empty": {}}"#
        let value = try JSONDecoder().decode(JSONObject.Value.self, from: Data(text.utf8))
        guard case .object(let object) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        let members = Dictionary(uniqueKeysWithValues: object.members)
        #expect(members["id"] == .int(42) && members["big"] == .int(-9_007_199_254_740_993))
        #expect(members["ratio"] == .number(1.5) && members["tiny"] == .number(2.5e-8))
        #expect(members["ok"] == .bool(true) && members["none"] == .null)
        #expect(members["name"] == .string("Jan \"J\" Novák"))
        #expect(
            members["list"]
                == .array([.int(1), .array([.number(2.25), .bool(false)]), .object(JSONObject(["k": .string("v")]))]))
        #expect(members["empty"] == .object(JSONObject([:])))
        // Written by either writer, the text parses back to the same value.
        for written in [value.utf8, Array(try JSONEncoder().encode(value))] {
            #expect(try JSONDecoder().decode(JSONObject.Value.self, from: Data(written)) == value, "\(written)")
        }
        #expect(JSONObject(["x": .number(.infinity)]).text == #"{"x": null}"#)
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
