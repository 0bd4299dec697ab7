import TextFormats

/// Selects pass records by serial number, optionally narrowed by pass type and device label.
public struct PassQuery: Sendable, Hashable, CustomStringConvertible {
    public var serialNumber: String
    public var passTypeIdentifier: String?
    public var device: String?

    public init(serialNumber: String, passTypeIdentifier: String? = nil, device: String? = nil) {
        self.serialNumber = serialNumber
        self.passTypeIdentifier = passTypeIdentifier
        self.device = device
    }

    public var description: String {
        var text = "serial \(SafeText.escaped(Mask.identifier(serialNumber)))"
        if let passTypeIdentifier { text += " of type \(SafeText.escaped(passTypeIdentifier))" }
        if let device { text += " on device \"\(SafeText.escaped(device))\"" }
        return text
    }
}
