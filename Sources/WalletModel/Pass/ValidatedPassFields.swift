/// Validated fields: required ones present and every given value within its limits.
public struct ValidatedPassFields: Sendable, Equatable {
    public var serialNumber: String
    public var deviceAccountIdentifier: String
    public var passTypeIdentifier: String
    public var state: PassState?
    public var device: String?
    public var cardSuffix: String?

    public init(
        serialNumber: String, deviceAccountIdentifier: String, passTypeIdentifier: String, state: PassState?,
        device: String?, cardSuffix: String?
    ) {
        self.serialNumber = serialNumber
        self.deviceAccountIdentifier = deviceAccountIdentifier
        self.passTypeIdentifier = passTypeIdentifier
        self.state = state
        self.device = device
        self.cardSuffix = cardSuffix
    }

    /// The record a new row gets: defaults for what was not given.
    public var newRecord: PassRecord {
        PassRecord(
            passTypeIdentifier: passTypeIdentifier, serialNumber: serialNumber,
            deviceAccountIdentifier: deviceAccountIdentifier, state: state ?? .requiresActivation,
            device: device, cardSuffix: cardSuffix
        )
    }
}
