/// The documents the user scans, one per chosen type, with what the server has of each:
/// a side is rejected when the server lists errors for it; a document is not uploaded (no
/// sides), rejected (any side rejected) or accepted.
public struct ScanProcess: Sendable, Equatable {
    public struct Side: Sendable, Equatable {
        public let side: DocumentSide
        /// The server's id, sent as `originalDocumentId` when this side is uploaded again.
        public let serverID: String
        public let rejected: Bool
    }

    public enum UploadState: String, Sendable {
        case notUploaded, rejected, accepted
    }

    public struct Document: Sendable, Equatable {
        public let type: DocumentType
        public let sides: [Side]

        public var uploadState: UploadState {
            if sides.isEmpty { return .notUploaded }
            return sides.contains(where: \.rejected) ? .rejected : .accepted
        }

        /// The server id of this document's `side`, for a re-upload: its rejected copy when
        /// the server holds one (a copy another client added beside it is not the one to
        /// replace), else its latest.
        public func serverID(of side: DocumentSide) -> String? {
            (sides.last { $0.side == side && $0.rejected } ?? sides.last { $0.side == side })?.serverID
        }

        /// Whether the server holds an image of `side`.
        public func holds(_ side: DocumentSide) -> Bool {
            sides.contains { $0.side == side }
        }

        /// The sides to send next: the rejected ones of a rejected document, every side of
        /// the type otherwise.
        public var sidesToSubmit: [DocumentSide] {
            let all = type.sides ?? []
            guard uploadState == .rejected else { return all }
            return all.filter { side in sides.contains { $0.side == side && $0.rejected } }
        }
    }

    public let documents: [Document]

    /// The first document not accepted; nil when all are.
    public var nextDocumentToScan: Document? {
        documents.first { $0.uploadState != .accepted }
    }

    public init(types: [DocumentType], serverDocuments: [ServerDocument]) {
        documents = types.map { type in
            Document(
                type: type,
                sides: serverDocuments.filter { $0.type == type }.map {
                    Side(side: $0.side ?? .front, serverID: $0.id, rejected: !$0.errors.isEmpty)
                })
        }
    }
}
