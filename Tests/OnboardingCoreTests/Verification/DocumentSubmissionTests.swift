import ErrorCodes
import Foundation
import TestSupport
import Testing
import ZIPFoundation

@testable import OnboardingCore

/// The upload is checked whole before anything is sent, and the ZIP's entries are named as
/// the `documents[]` say.
@Suite struct DocumentSubmissionTests {
    let directory = TemporaryDirectory()

    func image(_ name: String, bytes: Int = 2000, fill: UInt8 = 0xD8) -> String {
        let path = directory.file(name)
        FileManager.default.createFile(atPath: path, contents: Data(repeating: fill, count: bytes))
        return path
    }

    @Test func fourSidesBecomeOneZipWithTheContractsNames() throws {
        let files = [
            DocumentImageFile(type: .idCard, side: .front, path: image("a.jpg", fill: 1)),
            DocumentImageFile(type: .idCard, side: .back, path: image("b.jpg", fill: 2)),
            DocumentImageFile(type: .passport, side: .front, path: image("c.jpg", fill: 3)),
            DocumentImageFile(type: .drivingLicense, side: .front, path: image("d.jpg", fill: 4)),
        ]
        let planned = try DocumentSubmission.plan(files, reupload: false, process: nil)
        #expect(
            planned.map(\.filename) == [
                "idcard_front.jpg", "idcard_back.jpg", "passport_front.jpg", "driverslicense_front.jpg",
            ])
        let zip = try DocumentSubmission.archive(planned)
        let archive = try Archive(data: zip, accessMode: .read)
        var entries: [String: Data] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            entries[entry.path] = data
        }
        #expect(
            entries.keys.sorted() == [
                "driverslicense_front.jpg", "idcard_back.jpg", "idcard_front.jpg", "passport_front.jpg",
            ])
        #expect(entries["passport_front.jpg"] == Data(repeating: 3, count: 2000))

        let object = DocumentSubmission.requestObject(processID: "p-1", documents: planned, archive: zip)
        let data = try #require(object["data"] as? String)
        #expect(!data.contains("\n") && !data.contains("\r"))
        #expect(Data(base64Encoded: data) == zip)
        #expect(object["resubmit"] as? Bool == false)
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.map { $0["side"] as? String } == ["FRONT", "BACK", "FRONT", "FRONT"])
        #expect(documents.allSatisfy { $0["originalDocumentId"] == nil })
    }

    @Test func aReuploadCarriesTheOriginalsAndSaysResubmit() throws {
        let process = ScanProcess(
            types: [.idCard],
            serverDocuments: [
                ServerDocument(id: "srv-front", type: .idCard, side: .front, status: .accepted),
                ServerDocument(
                    id: "srv-back", type: .idCard, side: .back, status: .rejected,
                    errors: ["Error verifying the document."]),
            ])
        let planned = try DocumentSubmission.plan(
            [DocumentImageFile(type: .idCard, side: .back, path: image("b.jpg"))], reupload: true, process: process)
        #expect(planned.map(\.originalDocumentID) == ["srv-back"])
        let object = DocumentSubmission.requestObject(processID: "p", documents: planned, archive: Data())
        #expect(object["resubmit"] as? Bool == true)
        #expect((object["documents"] as? [[String: Any]])?.first?["originalDocumentId"] as? String == "srv-back")
    }

    @Test func aReuploadReplacesTheRejectedCopyWhenTheServerHoldsTwo() throws {
        // Another client sent a second front beside the rejected one: that one stays.
        let process = ScanProcess(
            types: [.idCard],
            serverDocuments: [
                ServerDocument(
                    id: "rejected-front", type: .idCard, side: .front, status: .rejected,
                    errors: ["Error verifying the document."]),
                ServerDocument(id: "second-front", type: .idCard, side: .front, status: .accepted),
                ServerDocument(id: "back", type: .idCard, side: .back, status: .accepted),
            ])
        let document = try #require(process.documents.first)
        #expect(document.sidesToSubmit == [.front])
        let planned = try DocumentSubmission.plan(
            [DocumentImageFile(type: .idCard, side: .front, path: image("f.jpg"))], reupload: true, process: process)
        #expect(planned.map(\.originalDocumentID) == ["rejected-front"])
    }

    @Test(arguments: [
        (
            DocumentStatus.rejected,
            "the server already has the ID_CARD FRONT (rejected); to send a new image in its place, add --reupload"
        ),
        (
            DocumentStatus.accepted,
            "the server already has the ID_CARD FRONT (accepted); to send a new image in its place, add --reupload"
        ),
    ])
    func aSecondCopyOfASideIsRefused(status: DocumentStatus, message: String) throws {
        let process = ScanProcess(
            types: [.idCard],
            serverDocuments: [
                ServerDocument(
                    id: "front", type: .idCard, side: .front, status: status,
                    errors: status == .rejected ? ["blurred"] : [])
            ])
        let error = try #require(throws: VerificationError.self) {
            try DocumentSubmission.plan(
                [DocumentImageFile(type: .idCard, side: .front, path: image("f.jpg"))], reupload: false,
                process: process)
        }
        #expect(error.code == .verificationInvalidDocument)
        #expect(error.message == message)
        // The side the server lacks is a first upload.
        let back = try DocumentSubmission.plan(
            [DocumentImageFile(type: .idCard, side: .back, path: image("b.jpg"))], reupload: false, process: process)
        #expect(back.map(\.originalDocumentID) == [nil])
    }

    @Test func refusalsNameTheProblemAndReadNothingMore() throws {
        let process = ScanProcess(
            types: [.idCard, .passport],
            serverDocuments: [ServerDocument(id: "srv", type: .idCard, side: .front, status: .accepted)])
        let small = image("small.jpg")
        let cases: [([DocumentImageFile], Bool, ErrorCode, String)] = [
            ([], false, .verificationInvalidDocument, "at least one"),
            (
                [DocumentImageFile(type: .passport, side: .back, path: small)], false, .verificationInvalidDocument,
                "a PASSPORT has no BACK side"
            ),
            (
                [DocumentImageFile(type: .drivingLicense, side: .back, path: small)], false,
                .verificationInvalidDocument, "no BACK side"
            ),
            (
                [DocumentImageFile(type: .selfiePhoto, side: .front, path: small)], false, .verificationInvalidDocument,
                "not a document type to scan"
            ),
            (
                [
                    DocumentImageFile(type: .idCard, side: .back, path: small),
                    DocumentImageFile(type: .idCard, side: .back, path: small),
                ], false, .verificationInvalidDocument, "given twice"
            ),
            (
                [
                    DocumentImageFile(type: .idCard, side: .front, path: small),
                    DocumentImageFile(type: .passport, side: .front, path: small),
                ], true, .verificationInvalidDocument, "has no PASSPORT FRONT"
            ),
            (
                [
                    DocumentImageFile(
                        type: .passport, side: .front,
                        path: image("big.jpg", bytes: DocumentSubmission.maximumImageBytes + 1))
                ], false, .verificationFileTooLarge, "at most 1048576 bytes"
            ),
            (
                [DocumentImageFile(type: .passport, side: .front, path: directory.file("missing.jpg"))], false,
                .verificationFileUnreadable, "No such file"
            ),
            (
                [DocumentImageFile(type: .passport, side: .front, path: directory.path)], false,
                .verificationFileUnreadable, "not a regular file"
            ),
            (
                [DocumentImageFile(type: .passport, side: .front, path: image("empty.jpg", bytes: 0))], false,
                .verificationFileUnreadable, "empty"
            ),
        ]
        for (files, reupload, code, text) in cases {
            let error = try #require(throws: VerificationError.self) {
                try DocumentSubmission.plan(files, reupload: reupload, process: process)
            }
            #expect(error.code == code, "\(text)")
            #expect(error.message.contains(text), "\(error.message)")
        }
        let atLimit = DocumentImageFile(
            type: .passport, side: .front, path: image("limit.jpg", bytes: DocumentSubmission.maximumImageBytes))
        #expect(try DocumentSubmission.plan([atLimit], reupload: false, process: nil).first?.bytes.count == 1 << 20)
    }
}
