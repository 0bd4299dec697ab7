import Glibc

/// A point in time in milliseconds since the Unix epoch, printed as ISO 8601 UTC.
public struct Timestamp: Sendable, Equatable, Comparable, Hashable {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The current wall-clock time.
    public static func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Timestamp(milliseconds: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `2026-11-21T06:10:00.123Z`.
    public var iso8601: String {
        var seconds = time_t(milliseconds.floorDivided(by: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = parts.tm_year + 1900
        let millisecond = Int32(milliseconds.floorModulo(1000))
        guard (0...9999).contains(year) else { return Self.padded(parts, year: year, millisecond: millisecond) }
        // Written as 24 bytes: the audit formats four times a line, and string interpolation
        // cost more than the rest of the formatting (Benchmarks/README.md, "Measured shapes").
        return String(unsafeUninitializedCapacity: 24) { text in
            func put(_ value: Int32, _ width: Int, at offset: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    text[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            text[4] = UInt8(ascii: "-")
            put(parts.tm_mon + 1, 2, at: 5)
            text[7] = UInt8(ascii: "-")
            put(parts.tm_mday, 2, at: 8)
            text[10] = UInt8(ascii: "T")
            put(parts.tm_hour, 2, at: 11)
            text[13] = UInt8(ascii: ":")
            put(parts.tm_min, 2, at: 14)
            text[16] = UInt8(ascii: ":")
            put(parts.tm_sec, 2, at: 17)
            text[19] = UInt8(ascii: ".")
            put(millisecond, 3, at: 20)
            text[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Years outside 0–9999, each field padded with zeros to its width.
    private static func padded(_ parts: tm, year: Int32, millisecond: Int32) -> String {
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millisecond, 3))Z"
    }

    /// An upper bound (`--until`, `until=`): a date alone means the end of that day (UTC), so
    /// the day is included; a date-time means itself.
    public init?(iso8601Until text: String) {
        guard let start = Timestamp(iso8601: text) else { return nil }
        let dateOnly = text.count == 10 && !text.contains("T")
        self = dateOnly ? Timestamp(milliseconds: start.milliseconds + 86_400_000 - 1) : start
    }

    /// Parses an ISO 8601 date (`2026-11-21`, midnight UTC) or date-time
    /// (`2026-11-21T06:10`, `…:00`, `…:00.123`, with `Z` or `±HH:MM`; UTC when absent).
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += digits
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0, millisecond = 0, offsetMinutes = 0
        if index < bytes.count {
            guard expect("T") || expect(" "), let h = number(2), expect(":"), let m = number(2), h < 24, m < 60 else {
                return nil
            }
            hour = h
            minute = m
            if expect(":") {
                guard let s = number(2), s < 61 else { return nil }
                second = s
                if expect(".") {
                    let start = index
                    while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                    guard index > start else { return nil }
                    let fraction = String(decoding: bytes[start..<min(index, start + 3)], as: UTF8.self)
                    millisecond = Int(fraction.padding(toLength: 3)) ?? 0
                }
            }
            if expect("Z") {
            } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let oh = number(2), expect(":"), let om = number(2), oh < 24, om < 60 else { return nil }
                offsetMinutes = sign * (oh * 60 + om)
            }
            guard index == bytes.count else { return nil }
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Int64(timegm(&parts)) - Int64(offsetMinutes * 60)
        milliseconds = seconds * 1000 + Int64(millisecond)
    }
}

private extension String {
    func padding(toLength length: Int) -> String {
        count >= length ? self : self + String(repeating: "0", count: length - count)
    }
}

private extension Int64 {
    func floorDivided(by divisor: Int64) -> Int64 { (self - floorModulo(divisor)) / divisor }
    func floorModulo(_ divisor: Int64) -> Int64 { ((self % divisor) + divisor) % divisor }
}
