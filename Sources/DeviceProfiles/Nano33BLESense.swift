import BLECore

/// `nano33-ble-sense`, the Arduino Nano 33 BLE Sense of the Arduino tutorial (docs/board-contract.md,
/// "nano33-ble-sense").
public enum Nano33BLESense {
    public static let ledService = BluetoothUUID("cd48409a-f3cc-11ed-a05b-0242ac120003")!
    /// u8 0/1, write.
    public static let ledStatus = BluetoothUUID("cd48409b-f3cc-11ed-a05b-0242ac120003")!
    public static let sensorService = BluetoothUUID("d888a9c2-f3cc-11ed-a05b-0242ac120003")!
    /// i8 °C, read and notify.
    public static let temperature = BluetoothUUID("d888a9c3-f3cc-11ed-a05b-0242ac120003")!

    public static let advertisedName = "iOSArduinoBoard"
}

/// `hrm`, the heart-rate monitor with an alert light (docs/board-contract.md, "hrm").
public enum HeartRateMonitor {
    /// UTF-8 `redAlert` / `turnOff`, write with response.
    public static let alertLevel = Profile.custom(0x0401)

    /// `HRM-XXXX`, XXXX the last two address bytes in hex.
    public static func advertisedName(for address: DeviceAddress) -> String {
        "HRM-" + address.bytes.suffix(2).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The alert light's states, written as UTF-8 text.
    public enum Alert: String, Sendable, Hashable, CaseIterable {
        case redAlert
        case turnOff
    }
}
