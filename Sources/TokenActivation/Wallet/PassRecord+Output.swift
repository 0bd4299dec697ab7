import TextFormats
import WalletModel

extension PassRecord {
    /// The documented JSON shape (`serialNumber, deviceAccountIdentifier,
    /// passTypeIdentifier, state, device, cardSuffix`), identifiers masked unless `reveal`.
    public func json(reveal: Bool) -> JSONObject {
        JSONObject([
            "serialNumber": .string(Mask.identifier(serialNumber, reveal: reveal)),
            "deviceAccountIdentifier": .string(Mask.identifier(deviceAccountIdentifier, reveal: reveal)),
            "passTypeIdentifier": .string(passTypeIdentifier),
            "state": .string(state.rawValue),
            "device": .optional(device),
            "cardSuffix": .optional(cardSuffix),
        ])
    }
}
