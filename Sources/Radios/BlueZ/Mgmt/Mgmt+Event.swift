import BLECore

extension Mgmt {
    /// Any event a control socket receives, decoded; events blerig does not use stay raw.
    public enum Event: Hashable, Sendable {
        case commandComplete(CommandComplete)
        case commandStatus(CommandStatus)
        case indexRemoved
        case newSettings(NewSettings)
        case deviceConnected(DeviceConnected)
        case deviceDisconnected(DeviceDisconnected)
        case connectFailed(ConnectFailed)
        case deviceFound(DeviceFound)
        case discovering(Discovering)
        /// An event blerig does not decode (pairing, advertising, …): its code and parameters.
        case other(code: UInt16, parameters: [UInt8])

        public init(decoding packet: Packet) throws(DecodingError) {
            let p = packet.parameters
            switch EventCode(rawValue: packet.code) {
            case .commandComplete: self = .commandComplete(try CommandComplete(parameters: p))
            case .commandStatus: self = .commandStatus(try CommandStatus(parameters: p))
            case .indexRemoved: self = .indexRemoved
            case .newSettings: self = .newSettings(try NewSettings(parameters: p))
            case .deviceConnected: self = .deviceConnected(try DeviceConnected(parameters: p))
            case .deviceDisconnected: self = .deviceDisconnected(try DeviceDisconnected(parameters: p))
            case .connectFailed: self = .connectFailed(try ConnectFailed(parameters: p))
            case .deviceFound: self = .deviceFound(try DeviceFound(parameters: p))
            case .discovering: self = .discovering(try Discovering(parameters: p))
            default: self = .other(code: packet.code, parameters: p)
            }
        }

        /// The event as a packet for controller `index` (what a fake kernel sends).
        public func packet(index: UInt16) -> Packet {
            switch self {
            case let .commandComplete(event): event.packet(index: index)
            case let .commandStatus(event): event.packet(index: index)
            case .indexRemoved: IndexRemoved().packet(index: index)
            case let .newSettings(event): event.packet(index: index)
            case let .deviceConnected(event): event.packet(index: index)
            case let .deviceDisconnected(event): event.packet(index: index)
            case let .connectFailed(event): event.packet(index: index)
            case let .deviceFound(event): event.packet(index: index)
            case let .discovering(event): event.packet(index: index)
            case let .other(code, parameters): Packet(code: code, index: index, parameters: parameters)
            }
        }
    }
}
