import ErrorCodes
import Foundation
import HTTPTransport
import HexCoding
import Logging
import MPin
import TextFormats
import WalletModel

/// The PIN app login (MIRACL M-Pin): register an identity, confirm it after the e-mail link,
/// set the PIN, log in. One user per installation, persisted per instance id; the PIN is
/// never stored or sent, and is wiped after use.
public struct LoginService: Sendable {
    public let settings: LoginSettings
    let instanceID: String
    let database: StoreSource
    let logger: Logger
    let transports: TransportFactory
    let clock: @Sendable () -> Date

    /// Wrong PINs the platform takes before the next one blocks (its third failure answers 410).
    public static let attemptsBeforeBlock = 3

    public init(
        settings: LoginSettings, instanceID: String, database: StoreSource, logger: Logger,
        transports: TransportFactory = .curl, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.instanceID = instanceID
        self.database = database
        self.logger = logger
        self.transports = transports
        self.clock = clock
    }

    /// The stored user, without the network.
    public func status() async throws -> LoginStatus {
        try await database.using(logger: logger) { store in
            await loginStatus(try LoginStore(records: store).load(instanceID))
        }
    }

    /// Forgets the user (and its token) locally; false when there was none.
    public func delete() async throws -> Bool {
        try await database.using(logger: logger) { store in try await LoginStore(records: store).delete(instanceID) }
    }

    /// Starts a registration: discovery, an access code, `PUT registerURL`. The platform
    /// e-mails a confirmation link. An INVALID or BLOCKED user is deleted first.
    /// - Parameter deviceName: the host name when nil, as a device activation is named.
    public func register(identity: String, deviceName: String? = nil) async throws -> LoginStatus {
        let deviceName = deviceName ?? ActivationProcess.hostName
        try settings.checkConnection()
        return try await withUser(.register) { user, client, store in
            let discovery = try await client.discover()
            let accessCode = try await client.accessCode()
            let answer = try await client.send(
                MIRACLRequests.register(
                    discovery: discovery, clientID: settings.clientID, userID: identity, deviceName: deviceName,
                    accessCode: accessCode))
            try Self.checkRegistration(answer)
            let now = clock()
            let registered = LoginUser(
                identity: identity, deviceName: deviceName,
                mpinID: try client.require(answer, "mpinId", step: "registration"),
                regOTT: try client.require(answer, "regOTT", step: "registration"),
                state: .startedRegistration, secret: nil, discovery: discovery, failedAttempts: 0, lastLoginAt: nil,
                lastLoginAnswer: nil, createdAt: now
            )
            guard Hex.decode(registered.mpinID) != nil else {
                throw LoginError(.loginProtocol, "registration answered an mpinId that is not hex")
            }
            try await store.save(registered, instanceID: instanceID)
            logger.info("login.registered", metadata: ["state": "\(registered.state.rawValue)"])
            return loginStatus(registered)
        }
    }

    /// Sends the confirmation e-mail again (a new regOTT, the same mpinId).
    public func resendEmail() async throws -> LoginStatus {
        try settings.checkConnection()
        return try await withUser(.resendEmail) { user, client, store in
            guard var user else { throw LoginError.wrongState(.resendEmail, state: nil) }
            let accessCode = try await client.accessCode()
            let answer = try await client.send(
                MIRACLRequests.register(
                    discovery: user.discovery, clientID: settings.clientID, userID: user.identity,
                    deviceName: user.deviceName,
                    accessCode: accessCode, resend: (user.mpinID, user.regOTT)))
            try Self.checkRegistration(answer)
            user.regOTT = try client.require(answer, "regOTT", step: "resend")
            try await store.save(user, instanceID: instanceID)
            return loginStatus(user)
        }
    }

    /// Fetches both client-secret shares once the e-mail link was used, and keeps their sum
    /// until `set-pin`.
    public func confirm() async throws -> LoginStatus {
        try settings.checkConnection()
        return try await withUser(.confirm) { user, client, store in
            guard var user else { throw LoginError.wrongState(.confirm, state: nil) }
            let first = try await client.send(
                MIRACLRequests.signature(
                    discovery: user.discovery, clientID: settings.clientID, mpinID: user.mpinID, regOTT: user.regOTT))
            if first.status == 401 {
                throw LoginError(
                    .loginNotConfirmed, "the identity \(user.identity) is not confirmed yet", nextStep: .confirmLogin)
            }
            if first.status == 403 || first.status == 404 || first.status == 400 {
                throw LoginError(
                    .loginRegistrationRefused,
                    "the platform no longer knows this registration (HTTP \(first.status)); delete it and register again",
                    nextStep: .deleteLoginAndRegister)
            }
            let params = try client.require(first, "params", step: "signature")
            let share1 = try Self.point(
                try client.require(first, "clientSecretShare", step: "signature"), "clientSecretShare")
            let second = try await client.send(
                MIRACLRequests.clientSecret(discovery: user.discovery, clientID: settings.clientID, params: params))
            let share2 = try Self.point(
                try client.require(second, "clientSecret", step: "the second D-TA"), "clientSecret")
            let secret: G1Point
            do {
                secret = try MPinClientCrypto.clientSecret(share1: share1, share2: share2)
            } catch {
                throw LoginError(.loginProtocol, "the two client-secret shares cancel out")
            }
            user.secret = secret.hex
            user.state = .activated
            try await store.save(user, instanceID: instanceID)
            return loginStatus(user)
        }
    }

    /// Finishes the registration: token = client secret − PIN·H(ID). No network call.
    public func setPIN(_ pinDigits: [UInt8]) async throws -> LoginStatus {
        var pin = try Self.pin(pinDigits)
        defer { pin.wipe() }
        return try await database.using(logger: logger) { store in
            let loginStore = LoginStore(records: store)
            var user = try await loginStore.load(instanceID)
            guard LoginStep.setPIN.isAllowed(from: user?.state), var current = user, let secretHex = current.secret
            else {
                throw LoginError.wrongState(.setPIN, state: user?.state)
            }
            let identity = try Self.identity(current)
            let secret = try Self.point(secretHex, "the stored client secret")
            let token: G1Point
            do {
                token = try MPinClientCrypto.token(clientSecret: secret, pin: pin, identity: identity)
            } catch {
                throw LoginError(.loginInvalidPIN, "this PIN cannot be used with this identity; choose another")
            }
            current.secret = token.hex
            current.state = .registered
            current.failedAttempts = 0
            try await loginStore.save(current, instanceID: instanceID)
            user = current
            return loginStatus(user)
        }
    }

    /// Logs in with the PIN: an access code, codeStatus, pass 1, pass 2, authenticate (→ an
    /// authorization code), then the relying party's `/authtoken`. Records the login for the
    /// token-activation gate.
    /// - Throws: ``LoginError``: `login.wrongPIN` with the attempts left, `login.blocked`
    ///   (the token is deleted), `login.retry`, `login.refused`, transport and protocol codes.
    public func logIn(pin pinDigits: [UInt8]) async throws -> LoginOutcome {
        var pin = try Self.pin(pinDigits)
        defer { pin.wipe() }
        try settings.checkConnection()
        let counting = CountingTransport()
        return try await withUser(.logIn, counting: counting) { user, client, store in
            guard var user, let tokenHex = user.secret else { throw LoginError.wrongState(.logIn, state: user?.state) }
            let identity = try Self.identity(user)
            let token = try Self.point(tokenHex, "the stored token")
            let discovery = user.discovery
            let accessCode = try await client.accessCode()
            let status = try await client.send(
                MIRACLRequests.codeStatus(
                    discovery: discovery, clientID: settings.clientID, accessCode: accessCode, userID: user.identity))
            guard status.status == 200 else {
                throw LoginError.unexpected(status: status.status, step: "codeStatus", body: status.text)
            }

            let started = ContinuousClock.now
            var (u, x) = MPinClientCrypto.pass1(identity: identity)
            defer { x.wipe() }
            var cryptoTime = ContinuousClock.now - started
            guard let uHex = u.hex else { throw LoginError(.loginProtocol, "pass 1 produced no point") }
            let first = try await client.send(
                MIRACLRequests.pass1(discovery: discovery, clientID: settings.clientID, mpinID: user.mpinID, u: uHex))
            if first.status == 410 { throw try await block(&user, store: store) }
            guard let y = Scalar(hex: try client.require(first, "y", step: "pass 1")) else {
                throw LoginError(.loginProtocol, "pass 1 answered a y that is not a 256-bit hex number")
            }
            let secondStarted = ContinuousClock.now
            let v = MPinClientCrypto.pass2(x: x, y: y, token: token, pin: pin, identity: identity)
            cryptoTime += ContinuousClock.now - secondStarted
            guard let vHex = v.hex else { throw LoginError(.loginProtocol, "pass 2 produced no point") }
            let second = try await client.send(
                MIRACLRequests.pass2(
                    discovery: discovery, clientID: settings.clientID, mpinID: user.mpinID, accessCode: accessCode,
                    v: vHex))
            let authOTT = try client.require(second, "authOTT", step: "pass 2")

            let verdict = try await client.send(
                MIRACLRequests.authenticate(discovery: discovery, clientID: settings.clientID, authOTT: authOTT))
            try await judge(verdict, user: &user, store: store)
            let code = try client.require(verdict, "code", step: "authenticate")
            let relyingParty = try await client.send(
                MIRACLRequests.authToken(relyingPartyURL: settings.relyingPartyURL, code: code, userID: user.identity),
                server: "the relying party")
            guard relyingParty.status == 200 else {
                if relyingParty.status == 401 || relyingParty.status == 403 {
                    let reason = relyingParty.string("message") ?? "no reason given"
                    throw LoginError(.loginRefused, "the relying party refused the login: \(reason.prefix(120))")
                }
                throw LoginError.unexpected(
                    status: relyingParty.status, step: "the relying party's authtoken", body: relyingParty.text)
            }
            let now = clock()
            user.failedAttempts = 0
            user.lastLoginAt = now
            user.lastLoginAnswer = SafeText.prefix(relyingParty.text, scalars: 500)
            try await store.save(user, instanceID: instanceID)
            logger.info("login.succeeded")
            let milliseconds =
                Double(cryptoTime.components.attoseconds) / 1e15 + Double(cryptoTime.components.seconds) * 1000
            return LoginOutcome(
                identity: user.identity, loggedInAt: now, cryptoMilliseconds: milliseconds, requests: counting.count)
        }
    }

    // MARK: Helpers

    /// The platform's verdict on pass 2: 200 goes on; 401 counts a wrong PIN; 410 blocks; 412
    /// is a stale ticket, not counted against the PIN.
    func judge(_ verdict: MIRACLClient.Answer, user: inout LoginUser, store: LoginStore) async throws {
        switch verdict.status {
        case 200:
            return
        case 401:
            user.failedAttempts += 1
            try await store.save(user, instanceID: instanceID)
            let left = max(Self.attemptsBeforeBlock - user.failedAttempts, 1)
            throw LoginError(
                .loginWrongPIN, "wrong PIN; \(left) attempt\(left == 1 ? "" : "s") left before the identity is blocked",
                nextStep: .logIn, attemptsLeft: left)
        case 410:
            throw try await block(&user, store: store)
        case 412:
            throw LoginError(
                .loginRetry,
                "the platform refused the login ticket as invalid or expired (HTTP 412); nothing was counted against the PIN",
                nextStep: .logIn)
        default:
            throw LoginError.unexpected(status: verdict.status, step: "authenticate", body: verdict.text)
        }
    }

    /// Loads the user, checks `step` may run from its state (nothing is sent otherwise), and
    /// runs `body` with a client on the configured servers.
    func withUser<T>(
        _ step: LoginStep, counting: CountingTransport? = nil,
        _ body: (LoginUser?, MIRACLClient, LoginStore) async throws -> T
    ) async throws -> T {
        try await database.using(logger: logger) { store in
            let loginStore = LoginStore(records: store)
            let user = try await loginStore.load(instanceID)
            guard step.isAllowed(from: user?.state) else { throw LoginError.wrongState(step, state: user?.state) }
            if let registered = user?.discovery.movedFrom(configured: settings.connection.baseURL) {
                logger.warning("\(Self.movedMessage(registered: registered, configured: settings.connection.baseURL))")
            }
            let transport: any HTTPTransport
            do {
                transport = try transports.transport(settings.connection.transportOptions)
            } catch let error as TransportError {
                throw LoginError.transport(error, server: "the MIRACL platform")
            }
            counting?.inner = transport
            let client = MIRACLClient(settings: settings, transport: counting ?? transport)
            return try await body(user, client, loginStore)
        }
    }

    /// What the steps report about `user`, against the configured server.
    private func loginStatus(_ user: LoginUser?) -> LoginStatus {
        LoginStatus(user, configuredBackend: settings.connection.baseURL)
    }

    /// Said when `login.backend-url` no longer names the server the user registered with.
    public static func movedMessage(registered: String, configured: String) -> String {
        "this login user was registered with \(registered), and its requests go there; login.backend-url is now \(configured). "
            + "To move the user, delete it and register again"
    }

    /// The identity is blocked: the token is deleted, the state kept for `status`.
    func block(_ user: inout LoginUser, store: LoginStore) async throws -> LoginError {
        user.state = .blocked
        user.secret = nil
        user.failedAttempts = Self.attemptsBeforeBlock
        try await store.save(user, instanceID: instanceID)
        logger.notice("login.blocked")
        return LoginError(
            .loginBlocked, "the platform blocked the identity after too many wrong PINs; its token was deleted",
            nextStep: .deleteLoginAndRegister)
    }

    static func checkRegistration(_ answer: MIRACLClient.Answer) throws(LoginError) {
        switch answer.status {
        case 200: return
        case 400, 403:
            let reason = answer.object == nil ? String(answer.text.prefix(120)) : "HTTP \(answer.status)"
            throw LoginError(.loginRegistrationRefused, "the platform refused the registration: \(reason)")
        default: throw LoginError.unexpected(status: answer.status, step: "registration", body: answer.text)
        }
    }

    static func pin(_ digits: [UInt8]) throws(LoginError) -> PIN {
        do {
            return try PIN(digits: digits)
        } catch {
            throw LoginError(.loginInvalidPIN, "a PIN is \(PIN.lengths.lowerBound) to \(PIN.lengths.upperBound) digits")
        }
    }

    static func point(_ hex: String, _ name: String) throws(LoginError) -> G1Point {
        do {
            return try G1Point(hex: hex)
        } catch {
            throw LoginError(.loginProtocol, "\(name) is not a point on the curve")
        }
    }

    static func identity(_ user: LoginUser) throws(LoginError) -> MPinIdentity {
        do {
            return try MPinIdentity(mpinIdHex: user.mpinID)
        } catch {
            throw LoginError(.loginProtocol, "the stored mpinId is not hex")
        }
    }
}

/// Counts the requests of one login (for its report) around the real transport.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
    var inner: (any HTTPTransport)?
    private(set) var count = 0

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        try await counted().send(request)
    }

    /// Counts one request and gives the transport it goes out on.
    private func counted() throws(TransportError) -> any HTTPTransport {
        count += 1
        guard let inner else { throw TransportError(.other, wasSent: false, detail: "no transport") }
        return inner
    }
}
