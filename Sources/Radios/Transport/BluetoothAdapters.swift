import BenchCore
import BLECore
import Glibc

/// One Bluetooth adapter the kernel knows, as `hciconfig` and `blerig adapters` show it.
public struct BluetoothAdapter: Hashable, Sendable, Encodable {
    /// The N of hciN and of `hci-user:N`.
    public var index: UInt16
    /// `hci0`.
    public var name: String
    public var address: DeviceAddress
    /// HCI_UP: the kernel's host has the controller initialised (the user channel needs it down).
    public var isUp: Bool
    /// HCI_RUNNING: the transport to the controller is open.
    public var isRunning: Bool
    public var bus: Bus
    /// Whether the controller supports LE (LMP features byte 4 bit 6, `LMP_LE`); nil when the kernel has not read
    /// its features (all zero).
    public var supportsLE: Bool?

    /// The bus the controller sits on (`HCI_USB`, `HCI_UART`, … in libbluetooth's hci.h).
    public struct Bus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let virtual = Self(rawValue: 0)
        public static let usb = Self(rawValue: 1)
        public static let pcCard = Self(rawValue: 2)
        public static let uart = Self(rawValue: 3)
        public static let rs232 = Self(rawValue: 4)
        public static let pci = Self(rawValue: 5)
        public static let sdio = Self(rawValue: 6)
        public static let spi = Self(rawValue: 7)
        public static let i2c = Self(rawValue: 8)
        public static let smd = Self(rawValue: 9)
        public static let virtio = Self(rawValue: 10)

        private static let names = [
            "VIRTUAL", "USB", "PCCARD", "UART", "RS232", "PCI", "SDIO", "SPI", "I2C", "SMD", "VIRTIO",
        ]

        /// `USB`, as hciconfig writes it.
        public var description: String {
            Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "bus \(rawValue)"
        }
    }

    /// Flag bits of `struct hci_dev_info`.
    private static let up: UInt32 = 1 << 0
    private static let running: UInt32 = 1 << 2
    /// `LMP_LE`, in byte 4 of the LMP features.
    private static let lmpLE: UInt8 = 0x40

    public init(_ info: HCIDeviceInfo) {
        index = info.index
        name = info.name
        address = info.address
        isUp = info.flags & Self.up != 0
        isRunning = info.flags & Self.running != 0
        bus = Bus(rawValue: info.type & 0x0F)
        supportsLE =
            info.features.allSatisfy { $0 == 0 } || info.features.count < 5 ? nil : info.features[4] & Self.lmpLE != 0
    }

    /// `hci0  00:1A:7D:DA:71:13  USB  up running  LE`.
    public var summary: String {
        let state = (isUp ? "up" : "down") + (isRunning ? " running" : "")
        let le = supportsLE.map { $0 ? "LE" : "no LE" } ?? "LE unknown"
        return [name, address.description, bus.description, state, le].joined(separator: "  ")
    }

    private enum CodingKeys: String, CodingKey { case index, name, address, up, running, bus, le }

    /// `{"index": 0, "name": "hci0", "address": "00:1A:7D:DA:71:13", "up": true, "running": true, "bus": "USB",
    /// "le": true}`; `le` is null when unknown.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(index, forKey: .index)
        try container.encode(name, forKey: .name)
        try container.encode(address.description, forKey: .address)
        try container.encode(isUp, forKey: .up)
        try container.encode(isRunning, forKey: .running)
        try container.encode(bus.description, forKey: .bus)
        try container.encode(supportsLE, forKey: .le)
    }
}

/// The adapters the kernel knows (HCIGETDEVLIST, then HCIGETDEVINFO for each).
public enum BluetoothAdapters {
    /// Every adapter, by index. Throws the same explanations as opening the user channel: no Bluetooth in the
    /// kernel, no permission.
    public static func list(
        sockets: any BluetoothSockets = SystemBluetoothSockets()
    ) throws(HCITransportError) -> [BluetoothAdapter] {
        let socket: Int32
        do {
            socket = try sockets.openHCISocket()
        } catch {
            throw BluetoothFailure.socket(error, executable: BluetoothFailure.currentExecutable())
        }
        defer { sockets.close(socket) }
        let indexes: [UInt16]
        do {
            indexes = try sockets.adapterIndexes(socket)
        } catch {
            throw BluetoothFailure.listing(error, call: "HCIGETDEVLIST")
        }
        var adapters: [BluetoothAdapter] = []
        for index in indexes {
            do {
                adapters.append(BluetoothAdapter(try sockets.adapterInfo(socket, adapter: index)))
            } catch  where error.code == ENODEV {
                continue  // removed since HCIGETDEVLIST
            } catch {
                throw BluetoothFailure.listing(error, call: "HCIGETDEVINFO hci\(index)")
            }
        }
        return adapters.sorted { $0.index < $1.index }
    }

    /// One ``BluetoothAdapter/summary`` line per adapter, or a line that says there is none.
    public static func lines(_ adapters: [BluetoothAdapter]) -> [String] {
        adapters.isEmpty ? ["no Bluetooth adapters"] : adapters.map(\.summary)
    }
}
