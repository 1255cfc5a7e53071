import BLECore

extension Mgmt {
    /// New Settings Event (mgmt-api.txt: event code 0x0006): Current_Settings (4 octets). Sent to the other
    /// sockets when an adapter's settings change (bluetoothd powering it off, rfkill).
    public struct NewSettings: MgmtEvent {
        public static let code = EventCode.newSettings
        public var settings: Settings
        public init(_ settings: Settings) { self.settings = settings }
        public init(parameters: [UInt8]) throws(DecodingError) {
            settings = try CurrentSettings(parameters: parameters).settings
        }
        public var parameters: [UInt8] { CurrentSettings(settings).parameters }
    }

    /// Index Removed Event (mgmt-api.txt: event code 0x0005), no parameters: the adapter is gone (unplugged, its
    /// driver unloaded).
    public struct IndexRemoved: MgmtEvent {
        public static let code = EventCode.indexRemoved
        public init() {}
        public init(parameters: [UInt8]) throws(DecodingError) { _ = try NoParameters(parameters: parameters) }
        public var parameters: [UInt8] { [] }
    }
}
