import WalletModel

/// The fields of a pass record as they arrive from a user (flags, a CSV row, a JSON line),
/// before validation. `nil` means "not given": defaults apply to new records, and an
/// import keeps the stored value of an existing one.
public struct PassRecordFields: Sendable, Equatable {
    public var serialNumber: String?
    public var deviceAccountIdentifier: String?
    public var passTypeIdentifier: String?
    public var state: String?
    public var device: String?
    public var cardSuffix: String?

    public init(
        serialNumber: String? = nil, deviceAccountIdentifier: String? = nil, passTypeIdentifier: String? = nil,
        state: String? = nil, device: String? = nil, cardSuffix: String? = nil
    ) {
        self.serialNumber = serialNumber
        self.deviceAccountIdentifier = deviceAccountIdentifier
        self.passTypeIdentifier = passTypeIdentifier
        self.state = state
        self.device = device
        self.cardSuffix = cardSuffix
    }

    /// The input names of the fields, which are the JSON keys and the CSV header names.
    public enum Name: String, CaseIterable, Sendable {
        case serialNumber, deviceAccountIdentifier, passTypeIdentifier, state, device, cardSuffix
    }

    subscript(name: Name) -> String? {
        get {
            switch name {
            case .serialNumber: serialNumber
            case .deviceAccountIdentifier: deviceAccountIdentifier
            case .passTypeIdentifier: passTypeIdentifier
            case .state: state
            case .device: device
            case .cardSuffix: cardSuffix
            }
        }
        set {
            switch name {
            case .serialNumber: serialNumber = newValue
            case .deviceAccountIdentifier: deviceAccountIdentifier = newValue
            case .passTypeIdentifier: passTypeIdentifier = newValue
            case .state: state = newValue
            case .device: device = newValue
            case .cardSuffix: cardSuffix = newValue
            }
        }
    }
}
