import ErrorCodes
import Testing

@testable import OnboardingCore

/// Every cell of the contract's (phase, status) table, the empty ones included.
@Suite struct VerificationStateTableTests {
    typealias Cell = VerificationStateTable.Cell
    static let columns: [VerificationStatus] = [
        .notInitialized, .inProgress, .verificationPending, .accepted, .rejected, .failed,
    ]

    /// The contract's table, row by row in the column order above; nil is an empty cell.
    static let table: [(VerificationPhase?, [Cell?])] = [
        (nil, [.state(.intro), nil, nil, nil, nil, .state(.failed)]),
        (.documentUpload, [nil, .documents, .state(.processing(.documentVerification)), nil, nil, .state(.failed)]),
        (
            .documentVerification,
            [
                nil, .state(.processing(.documentVerification)), nil, .state(.processing(.documentAccepted)),
                .state(.endstate(.rejected)), .state(.failed),
            ]
        ),
        (
            .documentVerificationFinal,
            [
                nil, .state(.processing(.documentsCrossVerification)), nil,
                .state(.processing(.documentsCrossVerification)), .state(.endstate(.rejected)), .state(.failed),
            ]
        ),
        (
            .clientEvaluation,
            [
                nil, .state(.processing(.clientVerification)), nil, .state(.processing(.clientAccepted)),
                .state(.endstate(.rejected)), .state(.failed),
            ]
        ),
        (
            .presenceCheck,
            [
                .state(.presenceCheck), .state(.presenceCheck), .state(.processing(.verifyingPresence)), nil,
                .state(.endstate(.rejected)), .state(.failed),
            ]
        ),
        (.otpVerification, [nil, nil, .state(.otp(remainingAttempts: nil)), nil, nil, nil]),
        (.completed, [nil, nil, nil, .state(.success), .state(.endstate(.rejected)), .state(.failed)]),
    ]

    @Test func everyCellIsTheContracts() {
        #expect(Self.table.count == VerificationPhase.allCases.count + 1)
        var cells = 0
        for (phase, row) in Self.table {
            for (status, expected) in zip(Self.columns, row) {
                #expect(
                    VerificationStateTable.cell(phase: phase, status: status) == (expected ?? .empty),
                    "\(phase?.rawValue ?? "none") × \(status.rawValue)")
                cells += 1
            }
        }
        #expect(cells == 48)
    }

    @Test func anEmptyCellIsACodedErrorNamingThePair() {
        let error = VerificationError.unexpectedState(phase: .otpVerification, status: .accepted)
        #expect(error.code == .verificationUnexpectedState)
        #expect(error.message.contains("OTP_VERIFICATION") && error.message.contains("ACCEPTED"))
        #expect(error.code.exitStatus.rawValue == 76)
    }

    static func document(
        _ status: DocumentStatus, errors: [String] = [], type: DocumentType = .idCard, side: DocumentSide = .front,
        id: String = "d1"
    ) -> ServerDocument {
        ServerDocument(filename: "f.jpg", id: id, type: type, side: side, status: status, errors: errors)
    }

    /// The rule order when documents decide: rejected/failed/errors first, then all accepted,
    /// then processing, else failed; without chosen types, none → select, else failed.
    @Test(arguments: [
        ([document(.rejected), document(.verificationPending)], "scanDocument"),
        ([document(.failed), document(.inProgress)], "scanDocument"),
        ([document(.verificationPending, errors: ["Error verifying the document."])], "scanDocument"),
        ([document(.accepted), document(.accepted)], "scanDocument"),
        ([], "scanDocument"),
        ([document(.accepted), document(.uploadInProgress)], "processing"),
        ([document(.inProgress)], "processing"),
        ([document(.verificationPending)], "processing"),
        ([document(.verificationInProgress)], "processing"),
        ([document(.disposed)], "failed"),
        ([document(.accepted), document(DocumentStatus(rawValue: "SOMETHING_NEW"))], "failed"),
    ])
    func documentsWithChosenTypes(documents: [ServerDocument], state: String) {
        #expect(VerificationStateTable.documentsState(documents, chosenTypes: [.idCard]).name == state)
    }

    @Test func documentsWithoutChosenTypes() {
        #expect(VerificationStateTable.documentsState([], chosenTypes: nil) == .documentsToScanSelect)
        #expect(VerificationStateTable.documentsState([Self.document(.accepted)], chosenTypes: nil) == .failed)
    }

    @Test func processingIsDocumentVerification() {
        #expect(
            VerificationStateTable.documentsState([Self.document(.inProgress)], chosenTypes: [.idCard])
                == .processing(.documentVerification))
    }
}

@Suite struct ScanProcessTests {
    @Test func groupsTheServersDocumentsOntoTheChosenTypes() {
        let process = ScanProcess(
            types: [.idCard, .passport, .drivingLicense],
            serverDocuments: [
                ServerDocument(id: "front1", type: .idCard, side: .front, status: .accepted),
                ServerDocument(
                    id: "back1", type: .idCard, side: .back, status: .rejected,
                    errors: ["Error verifying the document."]),
                ServerDocument(id: "pass1", type: .passport, side: .front, status: .accepted),
                ServerDocument(id: "selfie", type: .selfiePhoto, side: nil, status: .accepted),
            ])
        #expect(process.documents.map(\.type) == [.idCard, .passport, .drivingLicense])
        #expect(process.documents.map(\.uploadState) == [.rejected, .accepted, .notUploaded])
        #expect(process.nextDocumentToScan?.type == .idCard)
        #expect(process.documents[0].serverID(of: .back) == "back1")
        #expect(process.documents[0].serverID(of: .front) == "front1")
        #expect(process.documents[2].serverID(of: .front) == nil)
    }

    /// A side counts as rejected only by its errors, not by its status.
    @Test(arguments: [
        (DocumentStatus.rejected, [String](), ScanProcess.UploadState.accepted),
        (.accepted, ["bad"], .rejected),
        (.verificationPending, [], .accepted),
    ])
    func aSideIsRejectedByItsErrors(status: DocumentStatus, errors: [String], state: ScanProcess.UploadState) {
        let process = ScanProcess(
            types: [.passport],
            serverDocuments: [ServerDocument(id: "p", type: .passport, side: .front, status: status, errors: errors)])
        #expect(process.documents[0].uploadState == state)
    }

    @Test func allAcceptedHasNothingToScan() {
        let process = ScanProcess(
            types: [.passport],
            serverDocuments: [ServerDocument(id: "p", type: .passport, side: nil, status: .accepted)])
        #expect(process.nextDocumentToScan == nil)
        #expect(process.documents[0].sides.first?.side == .front, "a document without a side is its front")
    }
}
