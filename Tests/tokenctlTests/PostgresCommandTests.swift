import Foundation
import TestSupport
import Testing

/// `tokenctl db …`, and what PostgreSQL's failures look like to a user.
@Suite struct PostgresCommandTests {
    @Test func migrateAppliesOnceAndStatusTellsWhereTheSchemaStands() throws {
        let database = try TestPostgres.makeDatabase()
        let cli = CLI()
        let environment = database.environment

        let fresh = try cli.run(["db", "status", "--json"], environment: environment)
        #expect(fresh.status == 74, "\(fresh.stderr)")
        #expect(try fresh.jsonObject()["applied"] as? Int == 0)
        let refused = try cli.run(["wallet", "list", "--json"], environment: environment)
        #expect(refused.status == 74 && refused.errorCode == "storage.migrationRequired", "\(refused.stdout)")
        #expect(refused.stderr.contains("tokenctl db migrate"))

        let migrated = try cli.run(["db", "migrate", "--json"], environment: environment)
        #expect(migrated.status == 0, "\(migrated.stderr)")
        #expect((try migrated.jsonObject()["appliedNow"] as? [String])?.isEmpty == false)
        let again = try cli.run(["db", "migrate", "--json"], environment: environment)
        #expect((try again.jsonObject()["appliedNow"] as? [String]) == [])
        #expect(try cli.run(["db", "status"], environment: environment).status == 0)

        // One pending migration is named in the singular.
        try database.psql(
            "CREATE TABLE schema_saved AS SELECT * FROM tokenctl_schema WHERE version = (SELECT max(version) FROM tokenctl_schema); DELETE FROM tokenctl_schema WHERE version IN (SELECT version FROM schema_saved)"
        )
        let one = try cli.run(["db", "status"], environment: environment)
        #expect(
            one.status == 74 && one.stderr.contains("1 migration pending; run tokenctl db migrate"), "\(one.stderr)")
        try database.psql("INSERT INTO tokenctl_schema SELECT * FROM schema_saved; DROP TABLE schema_saved")
        #expect(try cli.run(["db", "status"], environment: environment).status == 0)

        // A schema from a newer tokenctl.
        try database.psql("INSERT INTO tokenctl_schema (version, name) VALUES (99, 'from-the-future')")
        let newer = try cli.run(["wallet", "list", "--json"], environment: environment)
        #expect(newer.status == 74 && newer.errorCode == "storage.schemaTooNew", "\(newer.stdout)")
        // db status says so too, as db migrate does, instead of asking for a migration.
        let status = try cli.run(["db", "status", "--json"], environment: environment)
        #expect(status.status == 74 && status.errorCode == "storage.schemaTooNew", "\(status.stdout)")
        #expect(status.stderr.contains("use a newer tokenctl") && !status.stderr.contains("db migrate"))
        let text = try cli.run(["db", "status"], environment: environment)
        #expect(text.status == 74 && text.stderr.contains("(storage.schemaTooNew)"))
        let migrate = try cli.run(["db", "migrate"], environment: environment)
        #expect(migrate.status == 74 && migrate.stderr.contains("(storage.schemaTooNew)"))
    }

    @Test func unreachableServerAndRefusedPasswordAreCodedAndSendNothing() async throws {
        let harness = try await ActivationHarness.start(backend: .postgres)
        try await withTeardown({ try await harness.stop() }) {
            try harness.add("F1", "DF1")

            let wrongPassword = try harness.activate(
                "F1", environment: ["TOKENCTL_DATABASE_PASSWORD": "not-the-password"])
            #expect(
                wrongPassword.status == 74 && wrongPassword.errorCode == "storage.authentication",
                "\(wrongPassword.stdout)"
            )
            #expect(!wrongPassword.stderr.contains("not-the-password"))

            let port = try unusedPort()
            let down = try harness.activate(
                "F1",
                environment: ["TOKENCTL_DATABASE_URL": "postgres://tokenctl@127.0.0.1:\(port)/tokenctl?sslmode=disable"]
            )
            #expect(down.status == 75 && down.errorCode == "storage.unreachable", "\(down.stdout)")
            #expect(
                down.stderr.contains("cannot reach PostgreSQL at 127.0.0.1:\(port): connection refused"),
                "\(down.stderr)")
            let unknownHost = try harness.cli.run(
                ["wallet", "list"],
                environment: [
                    "TOKENCTL_DATABASE_URL": "postgres://tokenctl@db.tokenctl.invalid/tokenctl?sslmode=disable"
                ])
            #expect(
                unknownHost.status == 75
                    && unknownHost.stderr.contains("the host name db.tokenctl.invalid does not resolve"),
                "\(unknownHost.stderr)")
            for failure in [down, unknownHost] {
                #expect(
                    !failure.stderr.contains("SingleConnectionFailure")
                        && !failure.stderr.contains("SocketAddressError"),
                    "\(failure.stderr)")
            }
            #expect(harness.sandbox.activationRequestCount == 0)

            let inURL = try harness.cli.run(
                ["wallet", "list"],
                environment: ["TOKENCTL_DATABASE_URL": "postgres://tokenctl:secret@127.0.0.1:\(port)/tokenctl"])
            #expect(inURL.status == 78 && inURL.stderr.contains("password-file"), "\(inURL.stderr)")
            #expect(!inURL.stderr.contains("secret"))
        }
    }

    @Test func tlsChecksTheServersCertificateAgainstTheConfiguredCA() throws {
        let database = try TestPostgres.makeDatabase()
        let caFile = try #require(TestPostgres.caFile)
        let cli = CLI()
        func url(_ host: String, _ mode: String) -> String {
            database.url.replacingOccurrences(of: "127.0.0.1", with: host).replacingOccurrences(
                of: "sslmode=disable", with: "sslmode=\(mode)")
        }
        var verified = database.environment
        verified["TOKENCTL_DATABASE_URL"] = url("localhost", "verify-full")
        verified["TOKENCTL_DATABASE_TLS_CA_FILE"] = caFile
        #expect(try cli.run(["db", "migrate"], environment: verified).status == 0)
        #expect(try cli.run(["wallet", "list", "--json"], environment: verified).status == 0)

        // Without the CA the certificate is not trusted: nothing is sent, a coded error says what to set.
        var untrusted = verified
        untrusted.removeValue(forKey: "TOKENCTL_DATABASE_TLS_CA_FILE")
        let refused = try cli.run(["wallet", "list", "--json"], environment: untrusted)
        #expect(refused.status == 74 && refused.errorCode == "storage.tls", "\(refused.stdout)")
        #expect(refused.stderr.contains("database.tls.ca-file"))
        #expect(
            refused.stderr.contains(
                "offered a TLS certificate that was not accepted (its certificate could not be verified)"),
            "\(refused.stderr)")
        #expect(
            !refused.stderr.contains("BoringSSL") && !refused.stderr.contains(".build/")
                && !refused.stderr.contains(".cc:"), "\(refused.stderr)")

        // A CA file that is not PEM is the configuration's mistake, with config check's code
        // and words (78 config.fileInvalid), not an I/O error.
        var garbage = verified
        let notPEM = cli.write("ca.pem", "not a certificate\n")
        garbage["TOKENCTL_DATABASE_TLS_CA_FILE"] = notPEM
        let unusable = try cli.run(["wallet", "list", "--json"], environment: garbage)
        #expect(
            unusable.status == 78 && unusable.errorCode == "config.fileInvalid", "\(unusable.stdout)\(unusable.stderr)")
        #expect(
            unusable.stderr.contains("database.tls.ca-file names \(notPEM), which is not PEM holding certificates"),
            "\(unusable.stderr)")
        let checked = try cli.run(["config", "check", "--json"], environment: garbage)
        #expect(checked.status == 78 && checked.stdout.contains("config.fileInvalid"), "\(checked.stdout)")
        #expect(!unusable.stderr.contains("OPENSSL") && !unusable.stderr.contains(".cc:"), "\(unusable.stderr)")

        // sslmode=require encrypts without checking; verify-full cannot check an IP address.
        untrusted["TOKENCTL_DATABASE_URL"] = url("localhost", "require")
        #expect(try cli.run(["wallet", "list", "--json"], environment: untrusted).status == 0)
        verified["TOKENCTL_DATABASE_URL"] = url("127.0.0.1", "verify-full")
        let address = try cli.run(["wallet", "list", "--json"], environment: verified)
        #expect(address.status == 78 && address.stderr.contains("sslmode=verify-ca"), "\(address.stderr)")
    }

    @Test func copyMovesTheWalletAndAuditBothWaysAndRefusesAFullTarget() async throws {
        let harness = try await ActivationHarness.start()
        try await withTeardown({ try await harness.stop() }) {
            for serial in ["C1", "C2", "C3"] { try harness.add(serial, "D\(serial)") }
            #expect(try harness.activate("C1").outcome == "APPROVED")
            #expect(try harness.activate("C2").outcome == "APPROVED")
            let sqliteEntries = try harness.auditEntries()

            // SQLite → PostgreSQL: the same entries, the chain verifies, activation goes on there.
            let target = try TestPostgres.makeDatabase()
            let copied = try harness.cli.run(
                ["db", "copy", "--to", target.url, "--json"],
                environment: ["TOKENCTL_DATABASE_PASSWORD": TestPostgres.password])
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(copied.object["passes"] as? Int == 3 && copied.object["auditRows"] as? Int == 4, "\(copied.stdout)")
            var onPostgres = harness
            onPostgres.cli.environment.merge(target.environment) { $1 }
            #expect(
                try onPostgres.auditEntries().map { $0["requestId"] as? String }
                    == sqliteEntries.map { $0["requestId"] as? String })
            #expect(try onPostgres.activate("C3").outcome == "APPROVED")
            #expect(try onPostgres.activate("C1").outcome == "ALREADY_ACTIVATED")
            #expect(try onPostgres.cli.run("audit", "verify").status == 0)

            let again = try harness.cli.run(
                ["db", "copy", "--to", target.url, "--json"],
                environment: ["TOKENCTL_DATABASE_PASSWORD": TestPostgres.password])
            #expect(again.status == 74 && again.errorCode == "storage.targetNotEmpty", "\(again.stdout)")

            // And back into a new SQLite file.
            let back = harness.cli.directory.file("back.sqlite")
            let returned = try onPostgres.cli.run(["db", "copy", "--to", back, "--json"])
            #expect(returned.status == 0, "\(returned.stderr)")
            #expect(returned.object["auditRows"] as? Int == 8, "\(returned.stdout)")
            let verified = try harness.cli.run(["--database", back, "audit", "verify"])
            #expect(verified.status == 0 && verified.stdout.contains("8 rows"), "\(verified.stdout)")
            #expect(
                try harness.cli.run(["--database", back, "wallet", "list", "--state", "activated", "--json"]).json()
                    as? [Any] != nil)
        }
    }
}
