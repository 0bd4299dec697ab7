/// A file descriptor's bytes, a chunk at a time, as a batch reads them. Reads block the
/// reading task: a CLI batch's one input, read between its lines.
struct DescriptorChunks: AsyncSequence, Sendable {
    let descriptor: Int32
    let name: String
    /// Asked while a read waits for input: true ends the input there.
    let stopWaiting: @Sendable () -> Bool

    struct AsyncIterator: AsyncIteratorProtocol {
        var reader: ByteReader

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try reader.nextChunk()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: ByteReader(descriptor: descriptor, name: name, stopWaiting: stopWaiting))
    }
}
