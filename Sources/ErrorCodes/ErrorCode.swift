/// Every stable error code tokenctl emits: in `--json` output, in the audit, in messages.
///
/// A code names what went wrong without interpolated values, so scripts and metrics can
/// rely on it; ``exitStatus`` is the process exit status it leads to (DESIGN §2) and
/// ``meaning`` a one-line explanation for `tokenctl help exit-codes`.
public enum ErrorCode: String, CaseIterable, Sendable, Hashable, Comparable {
    // The command line.
    case usageInvalid = "usage.invalid"

    // The deeplink parser: one code per rule.
    case deeplinkTooLong = "deeplink.tooLong"
    case deeplinkInvalidCharacter = "deeplink.invalidCharacter"
    case deeplinkFragment = "deeplink.fragment"
    case deeplinkMalformed = "deeplink.malformed"
    case deeplinkFormatMismatch = "deeplink.formatMismatch"
    case deeplinkInvalidPercentEncoding = "deeplink.invalidPercentEncoding"
    case deeplinkDuplicateParameter = "deeplink.duplicateParameter"
    case deeplinkMissingSerialNumber = "deeplink.missingSerialNumber"
    case deeplinkEmptySerialNumber = "deeplink.emptySerialNumber"
    case deeplinkInvalidUTF8 = "deeplink.invalidUTF8"
    case deeplinkControlCharacter = "deeplink.controlCharacter"
    case deeplinkSerialTooLong = "deeplink.serialTooLong"
    case deeplinkInvalidPassType = "deeplink.invalidPassType"
    case deeplinkInvalidAction = "deeplink.invalidAction"

    // The wallet and its imports.
    case walletNotFound = "wallet.notFound"
    case walletAmbiguous = "wallet.ambiguous"
    case walletNotActivatable = "wallet.notActivatable"
    case walletDuplicate = "wallet.duplicate"
    case walletConflict = "wallet.conflict"
    case walletInvalidValue = "wallet.invalidValue"
    case importUnreadable = "import.unreadable"
    case importInvalidHeader = "import.invalidHeader"
    case importInvalidRow = "import.invalidRow"
    case importConflict = "import.conflict"

    // The audit and the activation pipeline.
    case auditNotFound = "audit.notFound"
    case auditChainBroken = "audit.chainBroken"
    case auditInconsistent = "audit.inconsistent"
    case auditNoCheckpoint = "audit.noCheckpoint"
    case auditNotConfigured = "audit.notConfigured"
    case auditWitnessRefused = "audit.witnessRefused"
    case auditWitnessUnreachable = "audit.witnessUnreachable"
    case activationInProgress = "activation.inProgress"
    case activationInterrupted = "activation.interrupted"
    case activationBatchUnreadable = "activation.batchUnreadable"
    case userActivationRequired = "user.activationRequired"

    // TMP: nothing sent, sent without an answer, or an answer outside the contract.
    case tmpConnectionRefused = "tmp.connectionRefused"
    case tmpDNSFailure = "tmp.dnsFailure"
    case tmpConnectTimeout = "tmp.connectTimeout"
    case tmpTLS = "tmp.tls"
    case tmpTimeout = "tmp.timeout"
    case tmpConnectionLost = "tmp.connectionLost"
    case tmpResponseTooLarge = "tmp.responseTooLarge"
    case tmpTransport = "tmp.transport"
    case tmpServerError = "tmp.serverError"
    case tmpRedirect = "tmp.redirect"
    case tmpUnexpectedStatus = "tmp.unexpectedStatus"
    case tmpInvalidBody = "tmp.invalidBody"
    case tmpUnknownStatus = "tmp.unknownStatus"

    // The onboarding server's activation process.
    case onboardingInProgress = "onboarding.inProgress"
    case onboardingNotRunning = "onboarding.notRunning"
    case onboardingCannotActivate = "onboarding.cannotActivate"
    case onboardingOTPInvalid = "onboarding.otpInvalid"
    case onboardingProcessFailed = "onboarding.processFailed"
    case onboardingResendTooEarly = "onboarding.resendTooEarly"
    case onboardingLimitReached = "onboarding.limitReached"
    case onboardingUnreachable = "onboarding.unreachable"
    case onboardingTLS = "onboarding.tls"
    case onboardingServerError = "onboarding.serverError"
    case onboardingProtocol = "onboarding.protocol"

    // The PIN app login (MIRACL M-Pin).
    case loginNoUser = "login.noUser"
    case loginUserExists = "login.userExists"
    case loginWrongState = "login.wrongState"
    case loginRegistrationRefused = "login.registrationRefused"
    case loginNotConfirmed = "login.notConfirmed"
    case loginInvalidPIN = "login.invalidPIN"
    case loginWrongPIN = "login.wrongPIN"
    case loginBlocked = "login.blocked"
    case loginRetry = "login.retry"
    case loginRefused = "login.refused"
    case loginRequired = "login.required"
    case loginUnreachable = "login.unreachable"
    case loginTLS = "login.tls"
    case loginServerError = "login.serverError"
    case loginProtocol = "login.protocol"

    // Identity verification.
    case verificationUnexpectedState = "verification.unexpectedState"
    case verificationMissingStatus = "verification.missingStatus"
    case verificationActivationNotActive = "verification.activationNotActive"
    case verificationWrongStep = "verification.wrongStep"
    case verificationWrongOTP = "verification.wrongOTP"
    case verificationConsentNotApproved = "verification.consentNotApproved"
    case verificationOTPFailed = "verification.otpFailed"
    case verificationFailed = "verification.failed"
    case verificationEndstate = "verification.endstate"
    case verificationTooEarly = "verification.tooEarly"
    case verificationFileTooLarge = "verification.fileTooLarge"
    case verificationFileUnreadable = "verification.fileUnreadable"
    case verificationInvalidDocument = "verification.invalidDocument"

    // The sandbox.
    case sandboxPortInUse = "sandbox.portInUse"
    case sandboxCannotListen = "sandbox.cannotListen"
    case sandboxStateUnusable = "sandbox.stateUnusable"
    case sandboxNotInstalled = "sandbox.notInstalled"

    // The resident service's API (`tokenctl serve`).
    case requestInvalid = "request.invalid"
    case requestTooLarge = "request.tooLarge"
    case requestUnsupportedMediaType = "request.unsupportedMediaType"
    case requestNotFound = "request.notFound"
    case requestMethodNotAllowed = "request.methodNotAllowed"
    case idempotencyMismatch = "idempotency.mismatch"
    case serviceUnauthorized = "service.unauthorized"
    case serviceOverloaded = "service.overloaded"
    case serviceAlreadyRunning = "service.alreadyRunning"
    case serviceCannotListen = "service.cannotListen"

    // The PowerAuth device activation.
    case powerAuthNotActivated = "powerauth.notActivated"
    case powerAuthAlreadyActivated = "powerauth.alreadyActivated"
    case powerAuthRejected = "powerauth.rejected"
    case powerAuthAuthFailed = "powerauth.authFailed"
    case powerAuthWrongPIN = "powerauth.wrongPIN"
    case powerAuthBlocked = "powerauth.blocked"
    case powerAuthNoToken = "powerauth.noToken"
    case powerAuthProtocol = "powerauth.protocol"
    case powerAuthServerError = "powerauth.serverError"
    case powerAuthUnreachable = "powerauth.unreachable"
    case powerAuthInvalidPIN = "powerauth.invalidPIN"
    case powerAuthUnsupportedFactor = "powerauth.unsupportedFactor"

    // The database.
    case storageBusy = "storage.busy"
    case storageDirectoryMissing = "storage.directoryMissing"
    case storageIO = "storage.io"
    case storageCorrupt = "storage.corrupt"
    case storageReadOnly = "storage.readOnly"
    case storageUnreachable = "storage.unreachable"
    case storageTLS = "storage.tls"
    case storageAuthentication = "storage.authentication"
    case storageConnectionLost = "storage.connectionLost"
    case storageMigrationRequired = "storage.migrationRequired"
    case storageSchemaTooNew = "storage.schemaTooNew"
    case storageTargetNotEmpty = "storage.targetNotEmpty"
    case storageUnsupported = "storage.unsupported"

    // The configuration and the files it names.
    case configFileMissing = "config.fileMissing"
    case configUnreadable = "config.unreadable"
    case configInvalidJSON = "config.invalidJSON"
    case configUnknownKey = "config.unknownKey"
    case configInvalidValue = "config.invalidValue"
    case configSecretMissing = "config.secretMissing"
    case configSecretPermissions = "config.secretPermissions"
    case configFileUnreadable = "config.fileUnreadable"
    case configFileInvalid = "config.fileInvalid"
    case configInsecureURL = "config.insecureURL"
    case configTLSFiles = "config.tlsFiles"

    public static func < (lhs: ErrorCode, rhs: ErrorCode) -> Bool { lhs.rawValue < rhs.rawValue }
}
