import ErrorCodes
import Foundation
import Glibc
import ZIPFoundation

/// An image file given for one side of a document.
public struct DocumentImageFile: Sendable, Equatable {
    public let type: DocumentType
    public let side: DocumentSide
    public let path: String

    public init(type: DocumentType, side: DocumentSide, path: String) {
        self.type = type
        self.side = side
        self.path = path
    }
}

/// A document side checked and read, ready to send.
public struct PlannedDocument: Sendable, Equatable {
    /// The ZIP entry's name and `documents[].filename`: `idcard_front.jpg`, ….
    public let filename: String
    public let type: DocumentType
    public let side: DocumentSide
    public let originalDocumentID: String?
    public let bytes: Data
}

/// The document upload: every image checked before anything is sent, then one ZIP whose
/// entry names equal the `filename` of each `documents[]` item, sent as base64.
public enum DocumentSubmission {
    /// The largest image accepted, 1 MiB.
    public static let maximumImageBytes = 1 << 20

    /// Checks the files and reads them. A type without that side (a passport's back), the same
    /// side twice, a re-upload where an image replaces nothing the server has (re-uploads are
    /// all or none), a new image of a side the server already has (a second copy the server
    /// would keep beside the first), an image over ``maximumImageBytes`` or a file that
    /// cannot be read is refused here, before anything is sent.
    ///
    /// - Parameter reupload: every image replaces the side the server has of its document
    ///   (its id from `process` becomes `originalDocumentId`; the rejected copy when there
    ///   are two).
    /// - Parameter process: what the server has; nil skips the check for second copies.
    public static func plan(
        _ files: [DocumentImageFile], reupload: Bool, process: ScanProcess?
    ) throws(VerificationError) -> [PlannedDocument] {
        guard !files.isEmpty else { throw .invalidDocument("give at least one document image") }
        var seen: Set<String> = []
        var originals: [String?] = []
        for file in files {
            guard let sides = file.type.sides, let stem = file.type.fileStem else {
                throw .invalidDocument(
                    "\(file.type) is not a document type to scan (ID_CARD, PASSPORT, DRIVING_LICENSE)")
            }
            guard sides.contains(file.side) else {
                throw .invalidDocument("a \(file.type) has no \(file.side.rawValue) side")
            }
            guard seen.insert(stem + "_" + file.side.rawValue).inserted else {
                throw .invalidDocument("\(file.type) \(file.side.rawValue) is given twice")
            }
            let held = process?.documents.first { $0.type == file.type }
            let original = held?.serverID(of: file.side)
            if reupload, original == nil {
                throw .invalidDocument(
                    "a re-upload replaces sides the server has, and it has no \(file.type) \(file.side.rawValue): submit new documents without --reupload, separately"
                )
            }
            if !reupload, let held, held.holds(file.side) {
                throw .invalidDocument(
                    "the server already has the \(file.type) \(file.side.rawValue) (\(held.uploadState.rawValue)); to send a new image in its place, add --reupload"
                )
            }
            originals.append(reupload ? original : nil)
        }
        var planned: [PlannedDocument] = []
        for (file, original) in zip(files, originals) {
            planned.append(
                PlannedDocument(
                    filename: "\(file.type.fileStem!)_\(file.side.rawValue.lowercased()).jpg", type: file.type,
                    side: file.side,
                    originalDocumentID: original, bytes: try read(file.path)
                ))
        }
        return planned
    }

    /// The ZIP of the images, stored without compression (images do not compress).
    public static func archive(_ documents: [PlannedDocument]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for document in documents {
            try archive.addEntry(
                with: document.filename, type: .file, uncompressedSize: Int64(document.bytes.count),
                modificationDate: Date(timeIntervalSince1970: 0), compressionMethod: .none
            ) { position, size in
                document.bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        guard let data = archive.data else { throw CocoaError(.fileWriteUnknown) }
        return data
    }

    /// The submit's `requestObject`: `resubmit` is true exactly when every image carries its
    /// original's id, and `side` is always sent.
    public static func requestObject(processID: String, documents: [PlannedDocument], archive: Data) -> [String: Any] {
        [
            "processId": processID,
            "data": archive.base64EncodedString(),
            "resubmit": !documents.isEmpty && documents.allSatisfy { $0.originalDocumentID != nil },
            "documents": documents.map { document -> [String: Any] in
                var item: [String: Any] = [
                    "filename": document.filename, "type": document.type.rawValue, "side": document.side.rawValue,
                ]
                if let original = document.originalDocumentID { item["originalDocumentId"] = original }
                return item
            },
        ]
    }

    /// Checks one image file as ``plan(_:reupload:process:)`` will: readable, a regular file,
    /// not empty, at most ``maximumImageBytes``.
    public static func check(_ path: String) throws(VerificationError) {
        _ = try read(path)
    }

    private static func read(_ path: String) throws(VerificationError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fileUnreadable(path, SystemError.text()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .fileUnreadable(path, "not a regular file") }
        guard Int(info.st_size) <= maximumImageBytes else { throw .fileTooLarge(path, bytes: Int(info.st_size)) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .fileUnreadable(path, SystemError.text())
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumImageBytes + 1) ?? Data()
        } catch {
            throw .fileUnreadable(path, error.localizedDescription)
        }
        // The file may have grown since stat.
        guard data.count <= maximumImageBytes else { throw .fileTooLarge(path, bytes: data.count) }
        guard !data.isEmpty else { throw .fileUnreadable(path, "the file is empty") }
        return data
    }
}
