/// A source read a page at a time, each page after the last value of the one before: how a
/// copy's target pulls a source's records and audit rows (``StoreCopy``).
public final class PageReader<Value> {
    private let pageSize: Int
    private let read: (Value?) async throws -> [Value]
    private var page: [Value] = []
    private var done = false

    /// - Parameter read: the page after a value (from the first when nil), at most `pageSize` long.
    public init(pageSize: Int, _ read: @escaping (Value?) async throws -> [Value]) {
        self.pageSize = pageSize
        self.read = read
    }

    /// The next page, in order; nil after the last.
    public func nextPage() async throws -> [Value]? {
        guard !done else { return nil }
        page = try await read(page.last)
        done = page.count < pageSize
        return page.isEmpty ? nil : page
    }
}
