extension ErrorCode {
    /// The exit status of a command that stops with this code: the one place where codes
    /// become exit statuses. Every code is listed; a new code does not compile until it
    /// is placed here.
    public var exitStatus: ExitStatus {
        switch self {
        case .requestInvalid, .requestTooLarge, .requestUnsupportedMediaType, .requestNotFound,
            .requestMethodNotAllowed, .idempotencyMismatch:
            .usage
        case .serviceUnauthorized:
            .userActivationRequired
        case .serviceOverloaded, .serviceAlreadyRunning:
            .temporary
        case .serviceCannotListen:
            .unavailable
        case .usageInvalid, .walletInvalidValue, .powerAuthInvalidPIN, .powerAuthUnsupportedFactor, .loginInvalidPIN:
            .usage
        case .deeplinkTooLong, .deeplinkInvalidCharacter, .deeplinkFragment, .deeplinkMalformed,
            .deeplinkFormatMismatch, .deeplinkInvalidPercentEncoding, .deeplinkDuplicateParameter,
            .deeplinkMissingSerialNumber, .deeplinkEmptySerialNumber, .deeplinkInvalidUTF8,
            .deeplinkControlCharacter, .deeplinkSerialTooLong, .deeplinkInvalidPassType, .deeplinkInvalidAction,
            .walletDuplicate, .walletConflict,
            .importUnreadable, .importInvalidHeader, .importInvalidRow, .importConflict,
            .auditChainBroken, .auditInconsistent, .auditWitnessRefused, .onboardingCannotActivate,
            .powerAuthAlreadyActivated,
            .loginUserExists, .loginWrongState, .loginRegistrationRefused, .activationBatchUnreadable,
            .verificationWrongStep, .verificationFileTooLarge, .verificationInvalidDocument:
            .rejectedInput
        case .walletNotFound, .walletAmbiguous, .walletNotActivatable, .auditNotFound, .auditNoCheckpoint,
            .onboardingNotRunning, .loginNoUser, .powerAuthNoToken,
            .verificationFileUnreadable:
            .notFound
        case .tmpConnectionRefused, .tmpDNSFailure, .tmpConnectTimeout, .tmpTLS, .tmpTimeout,
            .tmpConnectionLost, .tmpResponseTooLarge, .tmpTransport, .tmpServerError, .activationInterrupted,
            .onboardingUnreachable, .onboardingTLS, .onboardingServerError,
            .powerAuthServerError, .powerAuthUnreachable, .loginUnreachable, .loginTLS, .loginServerError,
            .sandboxCannotListen, .sandboxNotInstalled, .auditWitnessUnreachable:
            .unavailable
        case .storageDirectoryMissing, .storageIO, .storageCorrupt, .storageReadOnly, .storageAuthentication,
            .storageTLS,
            .storageMigrationRequired, .storageSchemaTooNew, .storageTargetNotEmpty, .storageUnsupported:
            .databaseError
        case .activationInProgress, .storageBusy, .storageUnreachable, .storageConnectionLost, .onboardingInProgress,
            .onboardingResendTooEarly, .onboardingLimitReached,
            .loginNotConfirmed, .loginRetry, .sandboxPortInUse, .verificationMissingStatus, .verificationTooEarly:
            .temporary
        case .tmpRedirect, .tmpUnexpectedStatus, .tmpInvalidBody, .tmpUnknownStatus, .onboardingProtocol,
            .powerAuthProtocol, .loginProtocol,
            .verificationUnexpectedState:
            .protocolError
        case .userActivationRequired, .powerAuthNotActivated, .powerAuthRejected, .powerAuthAuthFailed, .loginRequired,
            .powerAuthWrongPIN, .powerAuthBlocked, .verificationActivationNotActive:
            .userActivationRequired
        case .configFileMissing, .configUnreadable, .configInvalidJSON, .configUnknownKey, .configInvalidValue,
            .configSecretMissing, .configSecretPermissions, .configFileUnreadable, .configFileInvalid,
            .configInsecureURL, .configTLSFiles, .sandboxStateUnusable, .auditNotConfigured:
            .configuration
        case .onboardingOTPInvalid, .loginWrongPIN, .verificationWrongOTP, .verificationConsentNotApproved:
            .declined
        case .onboardingProcessFailed, .loginBlocked, .loginRefused, .verificationOTPFailed, .verificationFailed,
            .verificationEndstate:
            .failed
        }
    }
}
