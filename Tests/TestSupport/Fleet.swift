import Foundation

/// A primary and a streaming standby of one test's own (scripts/test-postgres.sh): the
/// URL that names both, and the failover's steps as an HA manager would take them.
public struct Fleet: Sendable {
    public let server: PrivateServer
    public let primaryPort: Int
    public let standbyPort: Int

    /// Starts a primary in a directory of its own and a standby of it, synchronous unless
    /// `asynchronous`.
    public static func start(_ name: String, asynchronous: Bool = false) throws -> Fleet {
        let server = PrivateServer(directory: "/tmp/tokenctl-\(name)-\(UUID().uuidString.prefix(8))")
        _ = try server.run("start")
        do {
            let exports = asynchronous ? try server.run("standby", "--async") : try server.run("standby")
            guard let ports = exports.firstMatch(of: /127\.0\.0\.1:(\d+),127\.0\.0\.1:(\d+)/),
                let primary = Int(ports.1), let standby = Int(ports.2)
            else {
                throw FleetError(message: "the standby's exports name no hosts: \(exports)")
            }
            return Fleet(server: server, primaryPort: primary, standbyPort: standby)
        } catch {
            _ = try? server.run("stop", "--purge")
            throw error
        }
    }

    /// `database.url` naming `hosts` (both, the primary first, by default).
    public func url(hosts: [Int]? = nil) -> String {
        let list = (hosts ?? [primaryPort, standbyPort]).map { "127.0.0.1:\($0)" }.joined(separator: ",")
        return "postgres://tokenctl@\(list)/tokenctl?sslmode=disable"
    }

    /// The primary dies as its machine would.
    public func killPrimary() throws { _ = try server.run("kill") }
    /// The standby is promoted; returns once it accepts writes.
    public func promote() throws { _ = try server.run("promote") }
    /// The standby stops receiving the primary's WAL.
    public func detachStandby() throws { _ = try server.run("detach") }
    /// Stops both and removes their files.
    public func remove() { _ = try? server.run("stop", "--purge") }

    /// One statement with psql, as tokenctl's role, on the server at `port`; its rows unaligned.
    public func psql(port: Int, _ sql: String) throws -> String {
        let result = try runProgram(
            "/usr/bin/psql",
            [
                "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "tokenctl", "-d",
                "tokenctl", "-c", sql,
            ],
            environment: ["PGPASSWORD": TestPostgres.password, "PATH": "/usr/bin:/bin"])
        guard result.status == 0 else { throw FleetError(message: "psql: \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The fleet could not be set up.
public struct FleetError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
