// swift-tools-version: 6.2
import PackageDescription

// Layers, from the bottom up (dependencies point one way):
//   ErrorCodes       every stable error code, its exit status and meaning; the errors all layers share
//   HexCoding        hexadecimal, the one codec of the audit's hashes, stored keys and M-Pin's wire
//   TextFormats      the text every layer writes or shows: the one JSON value type (objects in a
//                    documented member order, written and read), identifiers masked, unsafe characters
//                    escaped and labels' rule
//   CCurl            libcurl's headers; libcurl loaded on first use, typed wrappers for its variadic calls
//   CMalloc          glibc's allocator tuning (mallopt)
//   CSQLite          SQLite's process-wide settings (sqlite3_config)
//   HTTPTransport    the HTTPTransport protocol, CurlTransport (libcurl), the checks on what a connection uses
//   TransparencyLog  the log's pure formats on swift-crypto: RFC 9162 hashing and proofs, signed
//                    notes and their keys, checkpoints, cosignatures, tlog-proof files and the witness
//                    exchange; no storage, no I/O
//   WalletModel      the stored values (pass record, audit row and its hashed text, audit entry,
//                    timestamp, chain check) and the one store protocol (TokenStore, AttemptLedger,
//                    StateDatabase, TransparencyLogStore) with the StoreDriver that opens it and where
//                    each driver's database is (StoreOptions, PostgresOptions)
//   Storage          the SQLite driver: GRDB setup, migrations, WAL and busy settings, the wallet and
//                    audit tables, the group committer and the C-API fast paths
//   PostgresStorage  the PostgreSQL driver for a fleet of hosts (postgres-nio): connection,
//                    versioned schema, leases, the chained audit's server-side append
//   PowerAuth        PowerAuth 3.2 cryptography (client and server side) on swift-crypto
//   MPin             M-Pin (MIRACL) cryptography on BN254CX: field and G1 arithmetic, hash to the curve,
//                    the PIN mapping and the client's passes (the sandbox's server side uses the curve only)
//   OnboardingCore   the user-activation core: the activation process (onboarding contract),
//                    PowerAuth device activation, signed and token requests; their services
//   TokenActivation  the activation domain: deeplink parser, machine, session, TMP client, and the
//                    one activation runtime every activation runs in (a CLI's, a batch's, the
//                    service's); wallet and audit administration and import, on the store protocol;
//                    the audit's store-backed Merkle tree (AuditTree) and its checkpoints
//   TokenctlConfiguration  the configuration, read and checked once: flags, environment, file and
//                    defaults to Settings, `config show` and `config check`'s report; no driver
//   TokenctlApp      the composition root: the one factory from settings to a store driver, the
//                    services the commands use, db status/migrate/copy, the log output
//   ServiceAPI       the service's request decoding (bodies, batch lines, keys, the audit query) and
//                    its problem answers: what the fuzzer drives, without the server
//   TokenctlService  the resident service (`tokenctl serve`, DESIGN §8): the HTTP API on Hummingbird,
//                    the activation runtime as a service, idempotency keys, metrics, the socket's lock,
//                    systemd's notify and socket-activation protocols
//   TokenctlCommandLine what the command lines share: the global options and the settings they load,
//                    usage errors in one format, output and errors (--json), colour, and the
//                    `sandbox` and `demo` commands, declared once: tokenctl hands them to
//                    tokenctl-sandbox, which runs them (SandboxHost)
//   ServiceCommand   the service's command line (`tokenctl serve`, also started as `tokenctl-serve`)
//   Sandbox          loopback TMP, PowerAuth and onboarding server simulator and a transparency log
//                    witness (server side only: shares no client logic, only the PowerAuth primitives)
//   tokenctl         the command-line executable: the shell (parses arguments, calls one library
//                    function, prints) and the service (`serve`, or started as `tokenctl-serve`);
//                    `sandbox` and `demo` exec tokenctl-sandbox, installed beside it
//   tokenctl-sandbox the simulator and the demo: the client's modules and the Sandbox, never the
//                    service; kept out of the executable that production hosts run
//
// Both executables are linked alike.
// Relative relocations packed (DT_RELR, glibc 2.36): the loader applies them
// from a bitmap instead of one entry at a time. No symbol exported (the static Swift
// runtime's link options export every one): symbol tables nothing looks up.
// The release executable links the Swift runtime and Foundation statically (no Swift
// libraries to load and bind at start). What each saves: Benchmarks/README.md,
// Measured shapes. Asked for
// here, at the link, rather than with --static-swift-stdlib, which also changes
// every compilation: the test bundles, which Swift Testing needs linked to the shared
// libraries, then share the executable's objects. The modules were compiled against
// the shared Foundation, whose own libraries the static link names.
let executableLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--no-export-dynamic",
    ]),
    .unsafeFlags(
        [
            "-static-stdlib", "-lFoundationInternationalization", "-l_FoundationICU",
            "-l_FoundationCollections", "-l_FoundationCShims", "-lCoreFoundation",
            "-lswiftSynchronization",
        ], .when(configuration: .release)),
]

let package = Package(
    name: "tokenctl",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tokenctl", targets: ["tokenctl"]),
        .executable(name: "tokenctl-sandbox", targets: ["tokenctl-sandbox"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // Headers only: libcurl itself is loaded when the first transfer is set up (shim.h).
        .systemLibrary(name: "CCurl"),
        // glibc's mallopt, for the allocator settings of long runs.
        .systemLibrary(name: "CMalloc"),
        // sqlite3_config, variadic, for SQLite's process-wide settings.
        .systemLibrary(name: "CSQLite"),
        .target(name: "ErrorCodes"),
        .target(name: "HexCoding"),
        .target(name: "TextFormats"),
        .target(
            name: "HTTPTransport",
            dependencies: ["CCurl", "ErrorCodes", .product(name: "Logging", package: "swift-log")]),
        .target(name: "TransparencyLog", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "WalletModel",
            dependencies: [
                "TextFormats",
                "HexCoding",
                "ErrorCodes",
                "TransparencyLog",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Storage",
            dependencies: [
                "TextFormats",
                "CSQLite",
                "ErrorCodes",
                "TransparencyLog",
                "WalletModel",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PostgresStorage",
            dependencies: [
                "HexCoding",
                "ErrorCodes",
                "TransparencyLog",
                "WalletModel",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "PowerAuth",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "MPin",
            dependencies: ["HexCoding", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "OnboardingCore",
            dependencies: [
                "TextFormats",
                "HexCoding",
                "ErrorCodes",
                "PowerAuth",
                "MPin",
                "HTTPTransport",
                "WalletModel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(
            name: "TokenActivation",
            dependencies: [
                "TextFormats",
                "HexCoding",
                "CMalloc",
                "ErrorCodes",
                "OnboardingCore",
                "TransparencyLog",
                "WalletModel",
                "HTTPTransport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "TokenctlConfiguration",
            dependencies: [
                "TextFormats",
                "ErrorCodes",
                "TransparencyLog",
                "TokenActivation",
                "OnboardingCore",
                "WalletModel",
                "HTTPTransport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .target(
            name: "TokenctlApp",
            dependencies: [
                "TextFormats",
                "ErrorCodes",
                "TransparencyLog",
                "TokenctlConfiguration",
                "TokenActivation",
                "OnboardingCore",
                "WalletModel",
                "Storage",
                "PostgresStorage",
                "HTTPTransport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "ServiceAPI", dependencies: ["TextFormats", "ErrorCodes", "WalletModel", "TokenActivation"]),
        .target(
            name: "TokenctlService",
            dependencies: [
                "TextFormats",
                "ServiceAPI",
                "ErrorCodes",
                "TokenctlConfiguration",
                "TokenctlApp",
                "TokenActivation",
                "TransparencyLog",
                "WalletModel",
                "HTTPTransport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Sandbox",
            dependencies: [
                "HexCoding",
                "PowerAuth",
                "MPin",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]
        ),
        .target(
            name: "TokenctlCommandLine",
            dependencies: [
                "TextFormats",
                "ErrorCodes", "TokenctlConfiguration", "TokenctlApp", "TokenActivation", "OnboardingCore",
                "TransparencyLog", "WalletModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ServiceCommand",
            dependencies: [
                "TokenctlCommandLine",
                "ErrorCodes",
                "TokenctlConfiguration",
                "TokenctlApp",
                "TokenctlService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "tokenctl",
            dependencies: [
                "TextFormats",
                "TokenctlCommandLine",
                "ErrorCodes",
                "TokenctlConfiguration",
                "TokenctlApp",
                "TokenActivation",
                "OnboardingCore",
                "TransparencyLog",
                "WalletModel",
                "ServiceCommand",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: executableLinking
        ),
        .executableTarget(
            name: "tokenctl-sandbox",
            dependencies: [
                "TextFormats",
                "TokenctlCommandLine",
                "ErrorCodes",
                "TokenctlConfiguration",
                "TokenctlApp",
                "TokenActivation",
                "OnboardingCore",
                "WalletModel",
                "Sandbox",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: executableLinking
        ),
        .executableTarget(
            name: "WalletBenchmark",
            dependencies: [
                "TokenctlConfiguration", "TokenctlApp", "TokenActivation", "WalletModel",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/WalletBenchmark"
        ),
        .executableTarget(
            name: "TransparencyLogBenchmark",
            dependencies: [
                "TokenctlConfiguration", "TokenctlApp", "TokenActivation", "TransparencyLog", "WalletModel",
            ],
            path: "Benchmarks/TransparencyLogBenchmark"
        ),
        .executableTarget(
            name: "MPinBenchmark",
            dependencies: ["HexCoding", "MPin"],
            path: "Benchmarks/MPinBenchmark"
        ),
        .executableTarget(
            name: "TransportBenchmark",
            dependencies: ["HTTPTransport"],
            path: "Benchmarks/TransportBenchmark"
        ),
        .target(
            name: "TestSupport", dependencies: ["HTTPTransport"], path: "Tests/TestSupport",
            resources: [.copy("Vectors")]),
        .testTarget(name: "ErrorCodesTests", dependencies: ["ErrorCodes"]),
        .testTarget(name: "TextFormatsTests", dependencies: ["TextFormats"]),
        .testTarget(
            name: "WalletModelTests",
            dependencies: [
                "TextFormats", "WalletModel", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "TransparencyLogTests",
            dependencies: ["TransparencyLog", "TestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "PostgresStorageTests",
            dependencies: [
                "PostgresStorage", "WalletModel", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "WalletModel", "ErrorCodes", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "TokenActivationTests",
            dependencies: [
                "TextFormats",
                "HexCoding",
                "TokenActivation", "TokenctlConfiguration", "TokenctlApp", "WalletModel", "OnboardingCore",
                "HTTPTransport", "ErrorCodes", "Storage", "TestSupport",
                .product(name: "Logging", package: "swift-log"), .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "TokenctlAppTests",
            dependencies: [
                "HexCoding",
                "TokenctlConfiguration", "TokenctlApp", "TokenActivation", "TransparencyLog", "WalletModel", "Storage",
                "PostgresStorage", "ErrorCodes", "TestSupport", "HTTPTransport", "Sandbox",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TokenctlServiceTests",
            dependencies: [
                "TokenctlService", "ServiceAPI", "TokenActivation", "TokenctlConfiguration", "TransparencyLog",
                "WalletModel", "ErrorCodes", "Sandbox", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "HTTPTransportTests", dependencies: ["HTTPTransport", "Sandbox", "TestSupport"]),
        .testTarget(
            name: "SandboxTests",
            dependencies: [
                "Sandbox", "TestSupport", "TransparencyLog", "WalletModel",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(
            name: "OnboardingCoreTests",
            dependencies: [
                "OnboardingCore", "ErrorCodes", "Sandbox", "Storage", "WalletModel", "HTTPTransport", "PowerAuth",
                "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
        .testTarget(name: "MPinTests", dependencies: ["HexCoding", "MPin", "TestSupport"]),
        .testTarget(
            name: "PowerAuthTests",
            dependencies: ["PowerAuth", "TestSupport"],
            exclude: ["Reference"],
            resources: [.copy("Vectors"), .copy("ECIESFixtures")]
        ),
        .testTarget(
            name: "tokenctlTests",
            dependencies: [
                "ErrorCodes", "TransparencyLog", "WalletModel", "Sandbox", "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]
        ),
    ]
)

// The tests run on the release build that ships (make test): the modules they reach with
// `@testable import` are compiled for testing in every configuration, so that `make build`
// and the test build share one compilation.
let testableModules: Set<String> = [
    "TransparencyLog", "WalletModel", "Storage", "PostgresStorage", "MPin", "OnboardingCore", "TokenActivation",
    "TokenctlConfiguration", "TokenctlApp", "ServiceAPI", "TokenctlService", "Sandbox",
]
for target in package.targets where testableModules.contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.unsafeFlags(["-enable-testing"], .when(configuration: .release))]
}
// The tests' own code is not optimized: it compiles in a third of the time, and what it tests
// is the optimized code that ships.
for target in package.targets where target.type == .test || target.name == "TestSupport" {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"], .when(configuration: .release))]
}

// libFuzzer targets (`make fuzz`), one per parser. libFuzzer supplies their `main`, so they
// exist only in a build made with TOKENCTL_FUZZ=1 and `--sanitize fuzzer` (see Makefile).
if Context.environment["TOKENCTL_FUZZ"] != nil {
    let fuzzers: [(name: String, dependencies: [Target.Dependency])] = [
        ("DeeplinkFuzzer", ["TokenActivation"]),
        ("ImportFuzzer", ["TokenActivation", "WalletModel"]),
        ("TMPAnswerFuzzer", ["TokenActivation", "HTTPTransport"]),
        ("ConfigurationFuzzer", ["TokenctlConfiguration", "TokenActivation", "ErrorCodes"]),
        ("OnboardingEnvelopeFuzzer", ["OnboardingCore"]),
        ("VerificationAnswerFuzzer", ["OnboardingCore"]),
        ("MPinPointFuzzer", ["HexCoding", "MPin"]),
        ("ServiceRequestFuzzer", ["ServiceAPI", "TokenActivation"]),
        ("TransparencyLogFuzzer", ["TransparencyLog"]),
    ]
    let fuzzTargets: [Target] = fuzzers.map { fuzzer in
        .executableTarget(
            name: fuzzer.name,
            dependencies: fuzzer.dependencies,
            path: "Fuzz/Targets/\(fuzzer.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library", "-enable-testing"])]
        )
    }
    // Only the fuzzers and the modules they reach: one `swift build` builds all of them
    // together, and nothing else is compiled with the sanitizers.
    var reached = Set<String>()
    var pending = fuzzers.flatMap { $0.dependencies.compactMap(\.localName) }
    while let name = pending.popLast() {
        guard reached.insert(name).inserted, let target = package.targets.first(where: { $0.name == name }) else {
            continue
        }
        pending += target.dependencies.compactMap(\.localName)
    }
    package.targets = package.targets.filter { reached.contains($0.name) } + fuzzTargets
    package.products = []
    // AddressSanitizer on this package's code only (the modules the fuzzers reach and the
    // fuzzers); the dependencies get libFuzzer's coverage (`--sanitize fuzzer`) and no more,
    // which halves what the sanitized build compiles. swiftc keeps only its last -sanitize
    // option, hence the combined one.
    for target in package.targets where target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
    for target in fuzzTargets {
        target.linkerSettings = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
}

extension Target.Dependency {
    /// The name of a target of this package that the dependency names, if it does.
    var localName: String? {
        switch self {
        case .targetItem(let name, _): name
        case .byNameItem(let name, _): name
        default: nil
        }
    }
}
