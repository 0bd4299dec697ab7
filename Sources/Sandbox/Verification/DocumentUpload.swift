import Foundation
import ZIPFoundation

/// What the sandbox decides about a document image, from a marker anywhere in its bytes
/// (like the TMP test cards). Anything else is accepted; a missing entry marks its document
/// FAILED.
public enum DocumentMarker: String, CaseIterable, Sendable {
    case reject = "SBXREJECT"
    case fail = "SBXFAIL"
    case endstate = "SBXENDSTATE"
    case presenceFail = "SBXPRESENCEFAIL"

    /// One line for `tokenctl sandbox --help`.
    public var summary: String {
        switch self {
        case .reject: "the document is REJECTED, with an error (send it again with --reupload)"
        case .fail: "the document FAILED, with an error"
        case .endstate: "accepted, but the final verification rejects the user (an end state)"
        case .presenceFail: "accepted, but the first presence check fails"
        }
    }

    var bytes: Data { Data(rawValue.utf8) }
}

/// A `document/submit` read as the enrollment server reads it: `data` is base64 of a ZIP
/// whose entry names are the documents' `filename`s; each image's fate comes from its
/// ``DocumentMarker``.
enum DocumentUpload {
    struct Refusal: Error {
        let code: String
        let message: String
    }

    /// The documents of a submit, and the ids of the originals they replace.
    /// - Throws: ``Refusal`` for a request the server refuses whole.
    static func read(
        _ object: [String: Any], into verification: IdentityVerification, makeID: () -> String
    ) throws(Refusal) -> (documents: [IdentityVerification.Document], originals: [String]) {
        guard let items = object["documents"] as? [[String: Any]], !items.isEmpty,
            let data = (object["data"] as? String).flatMap({ Data(base64Encoded: $0) }),
            let resubmit = object["resubmit"] as? Bool
        else { throw Refusal(code: "INVALID_REQUEST", message: "documents, data (base64) and resubmit are required") }
        let originals = items.compactMap { $0["originalDocumentId"] as? String }
        // All or none: a resubmit replaces every file, a first upload none.
        guard originals.count == (resubmit ? items.count : 0) else {
            throw Refusal(
                code: "DOCUMENT_SUBMIT_FAILED",
                message: "resubmit must name an originalDocumentId for every document, and a first upload none")
        }
        guard originals.allSatisfy(verification.hasDocument(id:)) else {
            throw Refusal(
                code: "DOCUMENT_SUBMIT_FAILED", message: "an originalDocumentId is not a document of this verification")
        }
        let archive: Archive
        do {
            archive = try Archive(data: data, accessMode: .read)
        } catch {
            throw Refusal(code: "DOCUMENT_SUBMIT_FAILED", message: "data is not a ZIP archive")
        }
        var documents: [IdentityVerification.Document] = []
        for item in items {
            guard let filename = item["filename"] as? String, let type = item["type"] as? String else {
                throw Refusal(code: "INVALID_REQUEST", message: "every document needs a filename and a type")
            }
            let side = item["side"] as? String ?? "FRONT"
            documents.append(
                document(id: makeID(), filename: filename, type: type, side: side, bytes: entry(filename, of: archive)))
        }
        return (documents, originals)
    }

    /// An entry's bytes; nil when it is missing or does not extract.
    static func entry(_ name: String, of archive: Archive) -> Data? {
        guard let entry = archive[name] else { return nil }
        var content = Data()
        do {
            _ = try archive.extract(entry, skipCRC32: false) { (chunk: Data) in content.append(chunk) }
        } catch {
            return nil
        }
        return content
    }

    static func document(
        id: String, filename: String, type: String, side: String, bytes: Data?
    ) -> IdentityVerification.Document {
        func has(_ marker: DocumentMarker) -> Bool { bytes?.range(of: marker.bytes) != nil }
        let status: String
        if bytes == nil || has(.fail) {
            status = "FAILED"
        } else if has(.reject) {
            status = "REJECTED"
        } else {
            status = type.hasPrefix("SELFIE") ? "ACCEPTED" : "VERIFICATION_PENDING"
        }
        let errors = status == "FAILED" || status == "REJECTED" ? [IdentityVerification.documentError] : []
        return IdentityVerification.Document(
            id: id, filename: filename, type: type, side: side, status: status, errors: errors,
            endstate: has(.endstate), failsPresenceCheck: has(.presenceFail))
    }

}
