// swift-tools-version: 6.2
import PackageDescription

// Layers, from the bottom up (dependencies point one way):
//   Storage          the SQLite database: GRDB setup, migrations, WAL and busy settings
//   TokenActivation  configuration, wallet pass records, and (later) the activation pipeline
//   tokenctl         the command-line shell: parses arguments, calls one library function, prints
let package = Package(
    name: "tokenctl",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tokenctl", targets: ["tokenctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "Storage",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "TokenActivation",
            dependencies: [
                "Storage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .executableTarget(
            name: "tokenctl",
            dependencies: [
                "TokenActivation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "WalletBenchmark",
            dependencies: ["TokenActivation", "Storage"],
            path: "Benchmarks/WalletBenchmark"
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TokenActivationTests", dependencies: ["TokenActivation", "Storage", "TestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "tokenctlTests", dependencies: ["tokenctl", "TestSupport"]),
    ]
)
