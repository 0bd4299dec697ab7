import HTTPTransport

extension OnboardingError {
    /// A transport failure: nothing usable came back.
    init(_ error: TransportError) {
        switch error.kind {
        case .tls: self.init(.networkSSLError, detail: error.words)
        case .timeout, .connectTimeout: self.init(.networkTimeOut, detail: error.words)
        default: self.init(.networkNoInternetConnection, detail: error.words)
        }
    }
}
