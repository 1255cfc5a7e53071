import BLECore

/// One board of a bench with the capabilities its drivers give it. A capability a board lacks is nil: a Nano
/// with no reset wiring has no ``reset``; a board without a hub port has no ``power``.
public struct BenchBoard: Sendable {
    /// The board's id in the rig file.
    public let id: String
    /// How a central finds the board on the air.
    public let match: BoardMatch
    public let power: (any PowerSwitch)?
    public let reset: (any ResetControl)?
    public let console: (any BoardConsole)?
    /// What identifies the physical board (firmware, serial port, hub port, ...), in report order. The address
    /// and advertised name are added by the orchestrator once it has seen the board.
    public let identity: [(key: String, value: String)]

    public init(
        id: String, match: BoardMatch, power: (any PowerSwitch)? = nil, reset: (any ResetControl)? = nil,
        console: (any BoardConsole)? = nil, identity: [(key: String, value: String)] = []
    ) {
        self.id = id
        self.match = match
        self.power = power
        self.reset = reset
        self.console = console
        self.identity = identity
    }
}

/// How to recognise a board's advertising: its address, its advertised name, or both (both must then match).
public struct BoardMatch: Sendable, Hashable, CustomStringConvertible {
    public var address: DeviceAddress?
    public var name: String?

    public init(address: DeviceAddress? = nil, name: String? = nil) {
        precondition(address != nil || name != nil, "a board match needs an address or a name")
        self.address = address
        self.name = name
    }

    /// True when an advertisement from `address` carrying `data` is this board's.
    public func accepts(address: DeviceAddress, data: AdvertisingData) -> Bool {
        if let expected = self.address, expected != address { return false }
        if let name, data.localName != name { return false }
        return true
    }

    /// The scan filter that narrows a scan to this board.
    public var scanFilter: ScanFilter {
        ScanFilter(addresses: address.map { [$0] } ?? [], namePrefixes: name.map { [$0] } ?? [])
    }

    public var description: String {
        switch (address, name) {
        case let (address?, name?): "\(address) named '\(name)'"
        case let (address?, nil): "\(address)"
        case let (nil, name?): "name '\(name)'"
        case (nil, nil): "anything"
        }
    }
}
