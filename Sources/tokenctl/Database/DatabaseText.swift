import ErrorCodes
import TextFormats
import TokenActivation
import TokenctlApp
import TokenctlCommandLine
import WalletModel

/// The text and JSON of `tokenctl db status` and `db migrate`.
enum DatabaseText {
    static func lines(_ status: DatabaseStatus) -> [String] {
        var lines = [
            "database: \(status.backend) \(status.location)",
            "schema:   \(status.applied) of \(status.known) migrations\(status.isCurrent ? " (current)" : "")",
        ]
        if !status.pending.isEmpty {
            lines.append("pending:  \(status.pending.joined(separator: ", ")); run tokenctl db migrate")
        }
        if let replication = status.replication {
            for host in replication.hosts {
                lines.append("host:     \(host.address) \(host.role.rawValue)" + (host.error.map { ": \($0)" } ?? ""))
            }
            for standby in replication.standbys {
                let lag = standby.replayLagMilliseconds.map { "replay lag \($0) ms" } ?? "replay lag unknown"
                lines.append(
                    "standby:  \(SafeText.escaped(standby.name)) \(standby.syncState ?? "(state hidden: grant pg_monitor)"), \(lag)"
                )
            }
            if let warning = replication.warning { lines.append("warning:  \(warning)") }
        }
        return lines
    }

    static func json(_ status: DatabaseStatus) -> JSONObject {
        var object = JSONObject([
            "backend": .string(status.backend), "location": .string(status.location), "applied": .int(status.applied),
            "known": .int(status.known), "pending": .array(status.pending.map { .string($0) }),
            "current": .bool(status.isCurrent),
        ])
        if let replication = status.replication {
            object.append(
                "hosts",
                .array(
                    replication.hosts.map { host in
                        .object(
                            JSONObject([
                                "address": .string(host.address), "role": .string(host.role.rawValue),
                                "error": .optional(host.error),
                            ]))
                    }))
            object.append(
                "standbys",
                .array(
                    replication.standbys.map { standby in
                        .object(
                            JSONObject([
                                "name": .string(standby.name), "syncState": .optional(standby.syncState),
                                "replayLagMs": standby.replayLagMilliseconds.map { .int($0) } ?? .null,
                            ]))
                    }))
            object.append("warning", .optional(replication.warning))
        }
        return object
    }
}

/// `db status` on a schema that is not this tokenctl's: the report is printed, then this error.
struct DatabaseOutcome: CodedError {
    let code: ErrorCode
    let message: String

    /// Behind: `db migrate` brings it up; ahead: only a newer tokenctl can use it (as
    /// `db migrate` says too).
    static func notCurrent(_ status: DatabaseStatus) -> DatabaseOutcome {
        if status.isNewer {
            return DatabaseOutcome(
                code: .storageSchemaTooNew,
                message:
                    "the database has schema version \(status.applied), newer than this tokenctl knows (\(status.known)); use a newer tokenctl"
            )
        }
        return DatabaseOutcome(
            code: .storageMigrationRequired,
            message:
                "\(status.pending.count) \(status.pending.count == 1 ? "migration" : "migrations") pending; run tokenctl db migrate"
        )
    }
}
