import OnboardingCore
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// Text and JSON shapes of the verification commands: every answer names the state and the
/// command to run next (the server drives the flow). OTPs and image bytes are never printed.
enum VerificationText {
    /// What to run in `state`.
    static func next(_ state: VerificationState) -> String {
        switch state {
        case .intro: NextStepText.command(.approveConsent)
        case .consent: "approve it with `tokenctl verification consent --approve`"
        case .documentsToScanSelect: NextStepText.command(.selectDocuments)
        case .scanDocument(let process):
            if let document = process.nextDocumentToScan {
                document.uploadState == .rejected
                    ? "send the rejected \(sideNames(document)) again with `tokenctl verification documents submit \(options(document.type, document.sidesToSubmit)) --reupload`"
                    : "submit \(document.type) (\(options(document.type))) with `tokenctl verification documents submit`"
            } else {
                otherDocuments(process.documents.map(\.type))
            }
        case .processing: "the server is working; run `tokenctl verification status` again in a few seconds"
        case .presenceCheck:
            NextStepText.command(.startPresenceCheck) + "; " + NextStepText.command(.finishPresenceCheck)
        case .otp: NextStepText.command(.verifyVerificationOTP) + " (a new one: `tokenctl verification otp resend`)"
        case .failed: NextStepText.command(.restartVerification)
        case .endstate: NextStepText.command(.cancelVerificationAndOnboard)
        case .success: "none: the user is verified and may approve token activations (`tokenctl activate`)"
        }
    }

    /// Every chosen document accepted while the server waits for documents: it needs others
    /// beside them. Names the accepted ones and a choice that adds one.
    static func otherDocuments(_ accepted: [DocumentType]) -> String {
        let names = accepted.map(\.rawValue).joined(separator: ", ")
        let example = accepted + DocumentType.scannable.filter { !accepted.contains($0) }.prefix(1)
        return "every chosen document (\(names)) is accepted, and the server needs other documents beside them: "
            + "choose again, e.g. `tokenctl verification documents select \(example.map(\.rawValue).joined(separator: " "))`"
    }

    /// The `submit` options for a document type, for all its sides or the ones given.
    static func options(_ type: DocumentType, _ sides: [DocumentSide]? = nil) -> String {
        switch type {
        case .idCard:
            (sides ?? [.front, .back]).map { $0 == .front ? "--id-card-front F" : "--id-card-back F" }.joined(
                separator: " ")
        case .passport: "--passport F"
        case .drivingLicense: "--driving-license F"
        default: type.rawValue
        }
    }

    /// "ID_CARD front", "ID_CARD front and back", "PASSPORT": the sides to send again.
    static func sideNames(_ document: ScanProcess.Document) -> String {
        let sides = document.sidesToSubmit
        guard (document.type.sides?.count ?? 0) > 1 else { return document.type.rawValue }
        return "\(document.type) " + sides.map { $0.rawValue.lowercased() }.joined(separator: " and ")
    }

    /// The state's detail: what is processed, attempts left, why it ended.
    static func detail(_ state: VerificationState) -> String? {
        switch state {
        case .processing(.other): "the server is finishing the verification"
        case .processing(let item): item.rawValue
        case .otp(let remaining): remaining.map { "\($0) attempts left" }
        case .endstate(let reason): reason.rawValue
        case .scanDocument(let process):
            process.documents.map { "\($0.type) \($0.uploadState.rawValue)" }.joined(separator: ", ")
        default: nil
        }
    }

    /// What `status` adds when the server went back to the presence check.
    static let presenceCheckFailed = "the presence check failed; do it again"

    static func lines(_ state: VerificationState, note: String? = nil) -> [String] {
        var lines = ["state         \(state.name)"]
        if let detail = note ?? detail(state) { lines.append("detail        \(detail)") }
        if case .consent(let text) = state { lines += ["", SafeText.escaped(text), ""] }
        lines.append("next          \(next(state))")
        return lines
    }

    static func json(_ state: VerificationState) -> JSONObject {
        var object = JSONObject(["state": .string(state.name)])
        switch state {
        case .consent(let text): object.append("consentText", .string(text))
        case .processing(let item): object.append("processing", .string(item.rawValue))
        case .otp(let remaining): object.append("remainingAttempts", remaining.map { .int($0) } ?? .null)
        case .endstate(let reason): object.append("reason", .string(reason.rawValue))
        case .scanDocument(let process):
            object.append(
                "documents",
                .array(
                    process.documents.map { document in
                        .object(
                            JSONObject([
                                "type": .string(document.type.rawValue),
                                "state": .string(document.uploadState.rawValue),
                                "sides": .array(
                                    document.sides.map { side in
                                        .object(
                                            JSONObject([
                                                "side": .string(side.side.rawValue), "id": .string(side.serverID),
                                                "rejected": .bool(side.rejected),
                                            ]))
                                    }),
                            ]))
                    }))
            object.append("nextDocument", process.nextDocumentToScan.map { .string($0.type.rawValue) } ?? .null)
        default: break
        }
        object.append("next", .string(next(state)))
        return object
    }

    static func print(_ state: VerificationState, json: Bool) {
        Output.print(json: json ? Self.json(state) : nil, lines: lines(state))
    }

    // MARK: Documents

    static func documentLines(_ documents: [ServerDocument]) -> [String] {
        guard !documents.isEmpty else { return ["no documents on the server"] }
        let rows =
            [["TYPE", "SIDE", "STATUS", "ID", "ERRORS"]]
            + documents.map { document in
                [
                    document.type.rawValue, document.side?.rawValue ?? "-", document.status.rawValue, document.id,
                    document.errors.joined(separator: "; "),
                ].map(SafeText.escaped)
            }
        // Columns as wide as their widest cell; the last one unpadded, so no line ends in spaces.
        let widths = (0..<4).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        return rows.map { row in
            // Two spaces between columns (pad adds one more to the widest cell of a column
            // padded to its own width, so pad past it).
            let line = (0..<4).map { TableCell.pad(row[$0], widths[$0] + 2) }.joined() + row[4]
            return String(line.reversed().drop(while: { $0 == " " }).reversed())
        }
    }

    static func documentsJSON(_ documents: [ServerDocument]) -> JSONObject {
        JSONObject([
            "documents": .array(
                documents.map { document in
                    .object(
                        JSONObject([
                            "id": .string(document.id), "filename": document.filename.map { .string($0) } ?? .null,
                            "type": .string(document.type.rawValue),
                            "side": document.side.map { .string($0.rawValue) } ?? .null,
                            "status": .string(document.status.rawValue),
                            "errors": .array(document.errors.map { .string($0) }),
                        ]))
                })
        ])
    }
}
