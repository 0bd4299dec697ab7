import ErrorCodes
import WalletModel

/// Which pass record a deeplink targets. The same serial can exist on an iPhone and a
/// paired Watch: exactly one record waiting for activation is the target; none is "no
/// activatable pass" (or "already activated"), more than one is ambiguous unless the
/// caller names the device. Suspended and deactivated records are never sent.
enum PassResolution: Equatable {
    case target(PassRecord)
    case alreadyActivated(PassRecord)
    case refused(ActivationError)

    init(records: [PassRecord], query: PassQuery) {
        let candidates = records.filter { $0.state == .requiresActivation || $0.state == .activating }
        if candidates.count == 1 {
            self = .target(candidates[0])
        } else if candidates.count > 1 {
            self = .refused(ActivationError(WalletError.ambiguous(query, matches: candidates)))
        } else if let activated = records.first(where: { $0.state == .activated }) {
            self = .alreadyActivated(activated)
        } else if let other = records.first {
            self = .refused(
                ActivationError(
                    code: .walletNotActivatable,
                    message:
                        "the pass record for \(query.description) is \(other.state.rawValue) and is never sent to TMP"
                ))
        } else {
            self = .refused(ActivationError(WalletError.notFound(query)))
        }
    }
}
