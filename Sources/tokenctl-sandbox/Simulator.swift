import TokenctlCommandLine

/// tokenctl-sandbox is the host that runs `tokenctl sandbox` and `tokenctl demo` (tokenctl
/// hands both to it).
enum Simulator: SandboxHost {
    static let sandboxDiscussion = SandboxRun.discussion
    static let demoDiscussion = Demo.discussion

    static func runSandbox(_ options: SandboxOptions) async throws {
        try await SandboxRun(options: options).run()
    }

    static func runDemo() async throws {
        try await Demo.run()
    }
}
