/// A source read a page at a time, each page after the last value of the one before: how a
/// copy's target pulls a source's records and audit rows (``StoreCopy``).
public final class PageReader<Value> {
    private let pageSize: Int
    private let read: (Value?) throws -> [Value]
    private var page: [Value] = []
    private var index = 0
    private var last: Value?
    private var done = false

    /// - Parameter read: the page after a value (from the first when nil), at most `pageSize` long.
    public init(pageSize: Int, _ read: @escaping (Value?) throws -> [Value]) {
        self.pageSize = pageSize
        self.read = read
    }

    /// The next value; nil after the last.
    public func next() throws -> Value? {
        if index == page.count {
            guard !done else { return nil }
            page = try read(last)
            index = 0
            done = page.count < pageSize
            guard let last = page.last else { return nil }
            self.last = last
        }
        defer { index += 1 }
        return page[index]
    }
}
