import Foundation

/// Prints the `listening …` lines in the order the listeners were given, once all listen.
actor ListeningReport {
    private var labels: [Int: String] = [:]
    private var expected: Int?
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func expect(_ count: Int) {
        expected = count
        settle()
    }

    func listening(_ index: Int, _ label: String) {
        labels[index] = label
        settle()
    }

    func allListening() async {
        if let expected, labels.count == expected { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func settle() {
        guard let expected, labels.count == expected, !printed else { return }
        printed = true
        for index in 0..<expected {
            FileHandle.standardOutput.write(Data("listening \(labels[index] ?? "?")\n".utf8))
        }
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    private var printed = false
}
