/// A wallet pass record: the pass a deeplink's serial number points at, and the device
/// account identifier that TMP knows as `tokenUniqueReference`.
public struct PassRecord: Sendable, Equatable {
    /// The default pass type for payment passes.
    public static let defaultPassType = "paymentpass.com.apple"

    public var passTypeIdentifier: String
    public var serialNumber: String
    public var deviceAccountIdentifier: String
    public var state: PassState
    /// A label such as `iPhone` or `Watch` that tells apart two passes with one serial.
    public var device: String?
    /// The last 4 or 5 digits of the card, for people recognising it.
    public var cardSuffix: String?

    public init(
        passTypeIdentifier: String = PassRecord.defaultPassType,
        serialNumber: String,
        deviceAccountIdentifier: String,
        state: PassState = .requiresActivation,
        device: String? = nil,
        cardSuffix: String? = nil
    ) {
        self.passTypeIdentifier = passTypeIdentifier
        self.serialNumber = serialNumber
        self.deviceAccountIdentifier = deviceAccountIdentifier
        self.state = state
        self.device = device
        self.cardSuffix = cardSuffix
    }
}
