/// Advertising and scan response data: a sequence of AD structures (Core 5.4 Vol 3 Part C §11,
/// Core Specification Supplement Part A).
/// PLACEHOLDER API — the full implementation (every AD type, strict length checks) is being written.
public struct AdvertisingData: Hashable, Sendable {
    public var localName: String?
    public var serviceUUIDs: [BluetoothUUID]

    public init(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = []) {
        self.localName = localName
        self.serviceUUIDs = serviceUUIDs
    }
}
