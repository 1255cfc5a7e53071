extension HCIHost {
    public struct Configuration: Sendable, Hashable {
        /// How long the controller may take to answer a command before the host declares it unresponsive.
        public var commandTimeout: Duration
        /// The random static address the host sets at initialisation and uses as its own address (advertising,
        /// scanning, initiating); nil to use the controller's public address.
        public var randomAddress: DeviceAddress?
        public var scanning: ScanningMode
        /// Active scanning with interval and window in 0.625 ms units (own address type is filled in).
        public var scan: HCI.ScanParameters
        /// The data length suggested to the controller for new links (octets, µs); nil leaves its default.
        public var dataLength: (octets: UInt16, time: UInt16)?
        /// The PHYs asked for on each new link when the controller supports them; nil leaves the link on 1M.
        public var preferredPHYs: HCI.PHYs?
        /// L2CAP frames a link may hold queued before ``HCIHost/canQueue(on:)`` says no.
        public var maximumQueuedFrames: Int
        /// Whether a peer's request for new connection parameters is granted (when the parameters are valid).
        public var acceptsParameterRequests: Bool

        public init(
            commandTimeout: Duration = .seconds(5), randomAddress: DeviceAddress? = nil,
            scanning: ScanningMode = .automatic, scan: HCI.ScanParameters = .init(),
            dataLength: (octets: UInt16, time: UInt16)? = (251, 2120), preferredPHYs: HCI.PHYs? = nil,
            maximumQueuedFrames: Int = 16, acceptsParameterRequests: Bool = true
        ) {
            self.commandTimeout = commandTimeout
            self.randomAddress = randomAddress
            self.scanning = scanning
            self.scan = scan
            self.dataLength = dataLength
            self.preferredPHYs = preferredPHYs
            self.maximumQueuedFrames = max(1, maximumQueuedFrames)
            self.acceptsParameterRequests = acceptsParameterRequests
        }

        public static func == (a: Self, b: Self) -> Bool {
            a.commandTimeout == b.commandTimeout && a.randomAddress == b.randomAddress && a.scanning == b.scanning
                && a.scan == b.scan && a.dataLength?.octets == b.dataLength?.octets
                && a.dataLength?.time == b.dataLength?.time && a.preferredPHYs == b.preferredPHYs
                && a.maximumQueuedFrames == b.maximumQueuedFrames
                && a.acceptsParameterRequests == b.acceptsParameterRequests
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(randomAddress)
            hasher.combine(scanning)
        }
    }

    /// Legacy (LE Set Scan Parameters, LE Create Connection) or extended (LE Set Extended Scan Parameters, LE
    /// Extended Create Connection) commands. A controller refuses to mix them until the next reset.
    public enum ScanningMode: String, Sendable, Hashable {
        /// Extended when the controller supports LE Extended Advertising, else legacy.
        case automatic
        case legacy
        case extended
    }

    /// What the controller said about itself during initialisation.
    public struct ControllerInfo: Sendable, Hashable, CustomStringConvertible {
        /// Its public BD_ADDR (may be 00:00:00:00:00:00 on controllers without one).
        public var publicAddress: DeviceAddress
        /// The address the host uses on the air: the configured random address, or the public one.
        public var address: DeviceAddress
        public var hciVersion: UInt8
        public var hciRevision: UInt16
        public var manufacturer: UInt16
        public var lmpSubversion: UInt16
        /// LE features (Core 5.4 Vol 6 Part B §4.6).
        public var leFeatures: UInt64
        /// The controller's LE ACL buffers: how many, and the data bytes each holds.
        public var aclBuffers: Int
        public var aclBufferSize: Int
        /// True when the host scans and initiates with the extended commands.
        public var usesExtendedScanning: Bool

        public var supportsDataLengthExtension: Bool { leFeatures & (1 << 5) != 0 }
        public var supports2MPHY: Bool { leFeatures & (1 << 8) != 0 }
        public var supportsExtendedAdvertising: Bool { leFeatures & (1 << 12) != 0 }

        public var description: String {
            "controller \(address), HCI version \(hciVersion), manufacturer 0x\(String(manufacturer, radix: 16)), "
                + "\(aclBuffers) LE ACL buffers of \(aclBufferSize) bytes, "
                + (usesExtendedScanning ? "extended scanning" : "legacy scanning")
        }
    }

    /// One connection the controller holds.
    public struct Link: Sendable, Hashable, CustomStringConvertible {
        public var handle: UInt16
        public var role: HCI.Role
        public var peer: DeviceAddress
        /// 1.25 ms units.
        public var interval: UInt16
        public var latency: UInt16
        /// 10 ms units.
        public var supervisionTimeout: UInt16
        public var established: RigInstant

        public var intervalDuration: Duration { .microseconds(Int64(interval) * 1250) }
        public var supervisionTimeoutDuration: Duration { .milliseconds(Int64(supervisionTimeout) * 10) }

        public var description: String {
            "link 0x\(String(handle, radix: 16)) \(role) to \(peer), interval \(intervalDuration.milliseconds.formatted3) ms"
        }
    }

    /// What the host tells its owner.
    public enum Event: Sendable, Hashable {
        /// Initialisation finished; the host takes requests.
        case ready(ControllerInfo)
        /// The controller failed in a way the host cannot recover from (it stops; every link is gone).
        case failed(HostError)
        case advertisement(HCI.AdvertisingReport)
        case connected(Link)
        /// A connection attempt to this peer ended without a link (0x02 after a cancel, 0x3E when it never
        /// answered, or the status of a refused LE Create Connection).
        case connectionFailed(DeviceAddress, HCIErrorCode)
        case disconnected(handle: UInt16, reason: HCIErrorCode)
        /// One complete ATT PDU from the peer.
        case att(handle: UInt16, [UInt8])
        /// New connection parameters are in effect.
        case parametersChanged(Link)
        /// A parameter update this host asked for (or answered) did not happen.
        case parameterUpdateFailed(handle: UInt16, HCIErrorCode)
        case dataLengthChanged(handle: UInt16, txOctets: UInt16, rxOctets: UInt16)
        case phyChanged(handle: UInt16, tx: UInt8, rx: UInt8)
        /// A command failed that no other event reports (scan enable, advertising, disconnect, ...).
        case commandFailed(HCI.Opcode, HCIErrorCode)
        /// A link that was full can take frames again.
        case transmitReady(handle: UInt16)
        /// Something the controller or peer sent was wrong; the host carried on.
        case warning(String)
    }

    /// Why the host stopped.
    public enum HostError: Error, Sendable, Hashable, CustomStringConvertible {
        /// No answer to a command within the configured timeout.
        case commandTimeout(HCI.Opcode, after: Duration)
        /// A command of the initialisation failed.
        case initialisation(HCI.Opcode, HCIErrorCode)
        /// The controller cannot do LE.
        case notLowEnergy
        /// The controller reported a hardware error.
        case hardwareError(UInt8)

        public var description: String {
            switch self {
            case let .commandTimeout(opcode, after):
                "the controller did not answer \(opcode) within \(after.seconds.formatted3) s"
            case let .initialisation(opcode, status): "initialising the controller failed: \(opcode) returned \(status)"
            case .notLowEnergy: "the controller does not support Bluetooth Low Energy"
            case let .hardwareError(code): "the controller reported hardware error 0x\([code].hexString)"
            }
        }
    }

    /// What the owner must do, in order.
    public enum Action: Sendable, Hashable {
        /// Write this packet to the transport. `about` is the device it concerns, for captures kept per device: the
        /// peer of the link it names or carries data for, the peer a connection is initiated to; nil for none.
        case send(HCI.H4Packet, about: DeviceAddress?)
        /// The packet just received concerns this device (as `about` above): the first action of
        /// ``HCIHost/receive(_:at:)``, present only when there is such a device. Nothing to carry out but a label.
        case received(about: DeviceAddress)
        case event(Event)
    }
}
