import PostgresNIO
import WalletModel

extension PostgresStore {
    /// The warning of `db status` and `config check` when a failover could lose what the
    /// primary committed (DESIGN §10).
    static let asynchronousWarning =
        "a failover may lose committed attempts: exactly-once across a failover needs a synchronous standby"

    /// Every host of the URL with its role, and from the host this store reaches (the
    /// primary), its standbys and whether commits wait for one.
    func replication() async throws -> DatabaseStatus.Replication {
        let selection = HostSelection(options: options, tls: tls, logger: logger)
        var hosts: [DatabaseStatus.Host] = []
        for endpoint in options.endpoints {
            do {
                let inRecovery = try await selection.isInRecovery(endpoint)
                hosts.append(DatabaseStatus.Host(address: "\(endpoint)", role: inRecovery ? .standby : .primary))
            } catch {
                let message = (error as? StorageError)?.message ?? "\(error)"
                hosts.append(DatabaseStatus.Host(address: "\(endpoint)", role: .unreachable, error: message))
            }
        }
        let rows = try await query(
            """
            SELECT application_name, sync_state, (extract(epoch FROM replay_lag) * 1000)::bigint AS lag,
                   current_setting('synchronous_standby_names') AS names,
                   current_setting('synchronous_commit') AS commit
            FROM pg_stat_replication RIGHT JOIN (SELECT 1) AS one ON true
            ORDER BY application_name
            """)
        var standbys: [DatabaseStatus.Standby] = []
        var names = "", commit = "on"
        for row in rows {
            let cells = NamedCells(row)
            names = try cells["names"]
            commit = try cells["commit"]
            if let name: String = try cells["application_name"] {
                standbys.append(
                    DatabaseStatus.Standby(
                        name: name, syncState: try cells["sync_state"], replayLagMilliseconds: try cells["lag"]))
            }
        }
        let synchronous = standbys.contains { $0.syncState == "sync" || $0.syncState == "quorum" }
        let waits = !names.isEmpty && ["on", "remote_apply"].contains(commit)
        let warning: String? =
            waits && (synchronous || standbys.contains { $0.syncState == nil })
            ? nil
            : Self.asynchronousWarning
                + (names.isEmpty
                    ? " (synchronous_standby_names is empty)"
                    : waits ? " (no synchronous standby is streaming)" : " (synchronous_commit is \(commit))")
        return DatabaseStatus.Replication(hosts: hosts, standbys: standbys, warning: warning)
    }
}
