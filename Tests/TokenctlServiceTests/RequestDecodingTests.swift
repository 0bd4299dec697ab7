import ErrorCodes
import Testing
import TokenActivation

@testable import ServiceAPI
@testable import TokenctlService

/// The API's request decoder: what it reads, and the problem of each body it cannot.
struct RequestDecodingTests {
    @Test(arguments: [
        (
            #"{"deeplink": "mybank://activate?serialNumber=SN1"}"#, "mybank://activate?serialNumber=SN1",
            nil as String?, false
        ),
        (#"{"deeplink": "d", "device": "Watch", "dryRun": true}"#, "d", "Watch", true),
        (#"{"dryRun": false, "deeplink": "x"}"#, "x", nil, false),
    ])
    func readsTheActivationBody(body: String, deeplink: String, device: String?, dryRun: Bool) throws {
        let request = try ActivationRequest.decode(Array(body.utf8), contentType: "application/json; charset=utf-8")
        #expect(request == ActivationRequest(deeplink: deeplink, device: device, dryRun: dryRun))
    }

    @Test(arguments: [
        ("not json", "application/json", 400, ErrorCode.requestInvalid),
        ("[]", "application/json", 400, .requestInvalid),
        (#"{"device": "x"}"#, "application/json", 400, .requestInvalid),
        (#"{"deeplink": 5}"#, "application/json", 400, .requestInvalid),
        (#"{"deeplink": "d", "device": ""}"#, "application/json", 400, .requestInvalid),
        (#"{"deeplink": "d", "dryRun": "yes"}"#, "application/json", 400, .requestInvalid),
        (#"{"deeplink": "d", "dryrun": true}"#, "application/json", 400, .requestInvalid),
        (#"{"dryRun": false, "deeplink": "x", "other": [1, 2]}"#, "application/json", 400, .requestInvalid),
        (#"{"deeplink": "d"}"#, "text/plain", 415, .requestUnsupportedMediaType),
        (#"{"deeplink": "d"}"#, "application/x-www-form-urlencoded", 415, .requestUnsupportedMediaType),
        (#"{"deeplink": "d"}"#, "json", 415, .requestUnsupportedMediaType),
    ])
    func refusesWhatItCannotRead(body: String, contentType: String, status: Int, code: ErrorCode) {
        #expect { try ActivationRequest.decode(Array(body.utf8), contentType: contentType) } throws: { error in
            let problem = error as? Problem
            return problem?.status == status && problem?.code == code && problem?.exitCode == 64
        }
    }

    @Test func aMissingContentTypeIs415() {
        #expect { try ActivationRequest.decode(Array(#"{"deeplink": "d"}"#.utf8), contentType: nil) } throws: {
            ($0 as? Problem)?.status == 415
        }
    }

    @Test func aBodyOver64KiBIs413() throws {
        let padding = String(repeating: " ", count: ActivationRequest.maximumBodyBytes)
        let body = Array((#"{"deeplink": "d"}"# + padding).utf8)
        #expect { try ActivationRequest.decode(body, contentType: "application/json") } throws: {
            ($0 as? Problem)?.code == .requestTooLarge
        }
        let exactly = Array((#"{"deeplink": "d"}"# + padding.dropFirst(17)).utf8)
        #expect(exactly.count == ActivationRequest.maximumBodyBytes)
        #expect(try ActivationRequest.decode(exactly, contentType: "application/json").deeplink == "d")
    }

    @Test(arguments: [
        ("k", true), (String(repeating: "a", count: 255), true), (String(repeating: "a", count: 256), false),
        ("", false), ("has space", false), ("tab\t", false), ("ünïcode", false),
        ("0b8e4a7c-1d2e-4f3a-9b8c-7d6e5f4a3b2c", true),
    ])
    func checksTheIdempotencyKey(key: String, accepted: Bool) {
        if accepted {
            #expect((try? ActivationRequest.idempotencyKey(key)) == key)
        } else {
            #expect { try ActivationRequest.idempotencyKey(key) } throws: { ($0 as? Problem)?.code == .requestInvalid }
        }
    }

    @Test func readsBothBatchForms() throws {
        guard
            case .request("mybank://a?serialNumber=1", nil, false) = try BatchFormat(
                contentType: "text/plain; charset=utf-8"
            ).batchLine(Array("mybank://a?serialNumber=1".utf8))
        else {
            Issue.record("a text line is not its deeplink")
            return
        }
        guard
            case .request("d", "Watch", true) = try BatchFormat(contentType: "application/x-ndjson").batchLine(
                Array(#"{"deeplink":"d","device":"Watch","dryRun":true}"#.utf8))
        else {
            Issue.record("an object line is not its request")
            return
        }
        guard
            case .answered(let result) = try BatchFormat(contentType: "application/x-ndjson").batchLine(Array("d".utf8))
        else {
            Issue.record("a line that is no object was run")
            return
        }
        #expect(result.error?.code == .requestInvalid)
        // A text line that is not UTF-8 names its first byte outside a URI, as the CLI's batch does.
        guard case .answered(let bad) = try BatchFormat(contentType: "text/plain").batchLine([0x61, 0xC3, 0x28]) else {
            Issue.record("a line that is not UTF-8 was run")
            return
        }
        #expect(bad.error?.code == .deeplinkInvalidCharacter)
        #expect { try BatchFormat(contentType: "application/json") } throws: { ($0 as? Problem)?.status == 415 }
    }

    @Test func splitsLinesAcrossChunksAndKeepsAtMostTheLimit() {
        var splitter = LineSplitter(limit: 4)
        #expect(splitter.append(Array("ab".utf8)).isEmpty)
        #expect(splitter.append(Array("c\r\nlongline\n\n".utf8)) == [Array("abc\r".utf8), Array("long".utf8), []])
        #expect(splitter.append(Array("tail".utf8)).isEmpty)
        #expect(splitter.finish() == Array("tail".utf8))
        #expect(splitter.finish() == nil)
        #expect(Array(" \t x \r".utf8).trimmingSpaces == ArraySlice("x".utf8))
    }

    @Test(arguments: [
        ("serial=SN1&outcome=APPROVED&limit=5", true), ("since=2026-11-21&until=2026-11-21T06:10:00Z", true),
        ("outcome=DRY_RUN", false), ("outcome=approved", true), ("unfinished=true", true), ("unfinished=yes", false),
        ("since=2026-11-22&until=2026-11-21", false), ("unfinished=true&outcome=FAILED", false), ("limit=0", false),
        ("limit=10001", false), ("limit=x", false),
        ("since=yesterday", false), ("serial=", false), ("serial=a&serial=b", false), ("reveal=1", false),
    ])
    func readsTheAuditQuery(query: String, accepted: Bool) {
        let parameters = query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
        if accepted {
            #expect((try? AuditQuery.parse(parameters)) != nil)
        } else {
            #expect { try AuditQuery.parse(parameters) } throws: { ($0 as? Problem)?.status == 400 }
        }
    }

    @Test func anUntilDateIncludesTheWholeDay() throws {
        let (filter, limit) = try AuditQuery.parse([("until", "2026-11-21"), ("limit", "3")])
        #expect(filter.until?.iso8601 == "2026-11-21T23:59:59.999Z")
        #expect(limit == 3)
    }

    @Test func theAuditQueryDefaultsTo100AndNamesTheNextPage() throws {
        let plain = try AuditQuery.request([])
        #expect(plain.limit == AuditQuery.defaultLimit && plain.limit == 100 && plain.before == nil)
        let request = try AuditQuery.request([("serial", "SN 1&2"), ("limit", "5"), ("before", "40")])
        #expect(request.before == 40 && request.limit == 5)
        #expect(request.nextPage(before: 12) == "serial=SN%201%262&limit=5&before=12")
        for bad in ["0", "-3", "x", ""] {
            #expect { try AuditQuery.request([("before", bad)]) } throws: { ($0 as? Problem)?.status == 400 }
        }
        #expect { try AuditQuery.request([("before", "1"), ("before", "2")]) } throws: {
            ($0 as? Problem)?.status == 400
        }
    }
}
