import ArgumentParser
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import TransparencyLog
import WalletModel

struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "What happened to a token, when, and why: the activation audit.",
        discussion: """
            One entry per activation attempt (its "started" and "finished" rows merged). Rows are \
            append-only and hash-chained; `audit verify` checks the chain (exit 65 when broken). The \
            rows are also a transparency log: the leaves of a Merkle tree whose head `audit checkpoint` \
            signs, with proofs of an entry (`audit prove`) and of a later tree extending an older one \
            (`audit consistency`) that tools other than tokenctl verify.
            """,
        subcommands: [
            AuditList.self, AuditShow.self, AuditExport.self, AuditVerify.self,
            AuditCheckpoint.self, AuditProve.self, AuditConsistency.self, AuditKeyCommand.self,
        ]
    )
}

struct AuditFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only attempts for this serial number.", valueName: "serial"))
    var serial: String?

    @Option(
        help: ArgumentHelp(
            "Only this outcome: APPROVED, DECLINED, FAILED, ALREADY_ACTIVATED, UNKNOWN, ERROR.", valueName: "outcome"),
        completion: .list(["APPROVED", "DECLINED", "FAILED", "ALREADY_ACTIVATED", "UNKNOWN", "ERROR"]))
    var outcome: String?

    @Option(
        help: ArgumentHelp(
            "Started at or after (ISO 8601 date or date-time; UTC unless an offset is given).", valueName: "time"))
    var since: String?

    @Option(
        help: ArgumentHelp(
            "Started at or before (ISO 8601 date or date-time; a date alone includes that whole day).",
            valueName: "time"))
    var until: String?

    @Flag(
        help:
            "Only attempts with no finished entry: in flight now, or left by a process that died (the next activation of the pass closes them as UNKNOWN)."
    )
    var unfinished = false

    func validate() throws {
        if unfinished && outcome != nil {
            throw ValidationError(
                "--unfinished lists attempts without an outcome; it cannot be combined with --outcome")
        }
        if let outcome, Self.outcome(outcome) == nil {
            throw ValidationError(
                "--outcome must be one of \(Self.outcomes.map(\.rawValue).joined(separator: ", ")) (any case)")
        }
        for (name, value) in [("--since", since), ("--until", until)] {
            if let value, Timestamp(iso8601: value) == nil {
                throw ValidationError(
                    "\(name) must be an ISO 8601 date or date-time, such as 2026-11-21 or 2026-11-21T06:10:00Z")
            }
        }
        // An empty window is a mistake to name, not 0 entries to print.
        if let since, let until, let from = Timestamp(iso8601: since), let to = Timestamp(iso8601Until: until),
            from > to
        {
            throw ValidationError("--since \(since) is later than --until \(until); nothing could match")
        }
    }

    /// The outcomes a filter names: every outcome but a dry run's, in any case.
    static let outcomes = Outcome.allCases.filter { $0 != .dryRun }

    static func outcome(_ text: String) -> Outcome? {
        outcomes.first { $0.rawValue == text.uppercased() }
    }

    var filter: AuditFilter {
        AuditFilter(
            serialNumber: serial, outcome: outcome.flatMap(Self.outcome)?.rawValue,
            since: since.flatMap(Timestamp.init(iso8601:)),
            until: until.flatMap(Timestamp.init(iso8601Until:)), unfinished: unfinished
        )
    }
}

struct AuditList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List audit entries, oldest first.")

    @OptionGroup var filter: AuditFilterOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            let audit = Audit(settings: try await global.readingSettings())
            var list = ListPrinter(json: output.json, header: AuditText.header)
            try await audit.forEach(filter.filter) { entry in
                list.add(entry.json(reveal: output.reveal), text: AuditText.row(entry, reveal: output.reveal))
            }
            list.finish(noun: "entry", plural: "entries")
        }
    }
}

struct AuditShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one audit entry by id (exit 66 when there is none).")

    @Argument(help: "The audit id (auditId in activate's output).")
    var id: Int64

    @OptionGroup var output: OutputOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: output.json) {
            var found: AuditEntry?
            try await Audit(settings: try await global.readingSettings()).forEach(AuditFilter(id: id)) { found = $0 }
            guard let entry = found else { throw AuditError.notFound(id: id) }
            if output.json {
                Output.line(entry.detailedJSON(reveal: output.reveal).text)
            } else {
                Output.write(AuditText.block(entry, reveal: output.reveal))
            }
        }
    }
}

struct AuditExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Write audit entries as CSV or JSON Lines (masked unless --reveal).")

    @Option(
        help: ArgumentHelp(
            "jsonl (default: keeps nulls, numbers and free-text comments as they are) or csv (for spreadsheets). wallet export defaults to csv because that is the import format operators edit.",
            valueName: "format"))
    var format: WalletFileFormat = .jsonl

    @OptionGroup var filter: AuditFilterOptions
    @Flag(help: "Show identifiers whole instead of masked.")
    var reveal = false
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await reportingErrors(json: false) {
            let audit = Audit(settings: try await global.readingSettings())
            if format == .csv { Output.line(AuditText.csvHeader) }
            try await audit.forEach(filter.filter) { entry in
                Output.line(format == .csv ? AuditText.csvLine(entry, reveal: reveal) : entry.json(reveal: reveal).text)
            }
        }
    }
}

struct AuditVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the audit's hash chain and its checkpoints: exit 0 when they hold, 65 when not.",
        discussion: """
            Checks the hash chain, then every stored checkpoint's tree head against the tree \
            recomputed from the rows (audit.chainBroken, audit.inconsistent: exit 65). With \
            --checkpoint and --verifier-key, checks instead a checkpoint an auditor kept: its \
            signature by the log's key, then that the rows still make its tree; a log cut below its \
            size or rewritten within it is audit.inconsistent, naming the missing rows or the first \
            leaf that differs from the tree as it was stored.
            """
    )

    @Option(
        help: ArgumentHelp("A checkpoint kept from audit checkpoint ('-' for standard input).", valueName: "file"),
        completion: .file())
    var checkpoint: String?

    @Option(
        name: .customLong("verifier-key"),
        help: ArgumentHelp("The log's verifier key, as audit key generate printed it.", valueName: "key"))
    var verifierKey: String?

    @Flag(help: "Print the result as JSON.")
    var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if (checkpoint == nil) != (verifierKey == nil) {
            throw ValidationError("--checkpoint and --verifier-key go together")
        }
        if let verifierKey, (try? NoteVerifier(verifierKey: verifierKey)) == nil {
            throw ValidationError(
                "--verifier-key is not a signed-note verifier key (NAME+HASH+KEY, as audit key generate prints it)")
        }
    }

    func run() async throws {
        try await reportingErrors(json: json) {
            let settings = try await global.readingSettings()
            if let checkpoint, let verifierKey {
                let verifier = try NoteVerifier(verifierKey: verifierKey)
                let note = try InputFile.read(checkpoint, option: "--checkpoint")
                let (signed, rows) = try await TransparencyLog(settings: settings).verify(
                    note: Array(note), verifier: verifier)
                Output.print(
                    json: json
                        ? JSONObject([
                            "verified": .bool(true), "checkpointSize": .int(Int(signed.size)), "rows": .int(Int(rows)),
                        ]) : nil,
                    lines: [
                        "checkpoint verified: \(signed.origin) at \(signed.size) rows, signed by its key; the log (\(rows) rows) extends it"
                    ])
                return
            }
            let (rows, broken) = try await Audit(settings: settings).verify()
            if let broken { throw AuditError.chainBroken(broken) }
            let checkpoints = try await TransparencyLog(settings: settings).verifyStored()
            if json {
                Output.line(
                    JSONObject(["verified": .bool(true), "rows": .int(rows), "checkpoints": .int(checkpoints)]).text)
            } else {
                Output.line(
                    "audit chain verified: \(rows) row\(rows == 1 ? "" : "s")"
                        + (checkpoints == 0 ? "" : "; \(checkpoints) checkpoint\(checkpoints == 1 ? "" : "s") hold"))
            }
        }
    }
}
