import ArgumentParser

/// Who runs `tokenctl sandbox` and `tokenctl demo`. The simulator is kept out of the
/// executable that production hosts run: `tokenctl` declares the two commands (for its help,
/// completions and manual) and hands them to `tokenctl-sandbox`, which runs them. Each
/// executable names itself as the host of the same two command types.
public protocol SandboxHost {
    /// What `sandbox --help` says below the abstract.
    static var sandboxDiscussion: String { get }
    /// What `demo --help` says below the abstract.
    static var demoDiscussion: String { get }
    static func runSandbox(_ options: SandboxOptions) async throws
    static func runDemo() async throws
}

/// `tokenctl sandbox`: the loopback simulator of every peer.
public struct SandboxCommand<Host: SandboxHost>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "sandbox",
            abstract:
                "Run the loopback TMP, PowerAuth, onboarding and MIRACL simulator, and a transparency log witness, on 127.0.0.1.",
            discussion: Host.sandboxDiscussion)
    }

    @OptionGroup public var options: SandboxOptions

    public init() {}

    public func run() async throws {
        try await Host.runSandbox(options)
    }
}

/// `tokenctl demo`: the whole flow on an embedded example, in a temporary directory.
public struct DemoCommand<Host: SandboxHost>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "demo",
            abstract:
                "Run the whole activation flow on an embedded example: nothing outside a temporary directory is touched.",
            discussion: Host.demoDiscussion)
    }

    public init() {}

    public func run() async throws {
        try await Host.runDemo()
    }
}
