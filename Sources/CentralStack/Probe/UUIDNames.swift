import BLECore
import DeviceProfiles

/// Names for the UUIDs blerig already knows: GATT's own attribute types, the standard services and
/// characteristics the profiles use, and the profiles' custom ones. Deliberately small: it names what BLECore and
/// DeviceProfiles define (plus the two services every GATT server has), not the Assigned Numbers registry; any
/// other UUID is shown by its number alone.
public enum UUIDNames {
    /// The name of `uuid`, or nil when blerig does not know it.
    public static func name(of uuid: BluetoothUUID) -> String? { names[uuid] }

    static let names: [BluetoothUUID: String] = {
        typealias Type = GATT.AttributeType
        let entries: [(BluetoothUUID, String)] = [
            // Vol 3 Part G: present on every GATT server.
            (BluetoothUUID(0x1800), "Generic Access"),
            (BluetoothUUID(0x1801), "Generic Attribute"),
            (Type.primaryService, "Primary Service"),
            (Type.secondaryService, "Secondary Service"),
            (Type.include, "Include"),
            (Type.characteristic, "Characteristic"),
            (Type.characteristicExtendedProperties, "Characteristic Extended Properties"),
            (Type.characteristicUserDescription, "Characteristic User Description"),
            (Type.clientCharacteristicConfiguration, "Client Characteristic Configuration"),
            (Type.serverCharacteristicConfiguration, "Server Characteristic Configuration"),
            (Type.characteristicPresentationFormat, "Characteristic Presentation Format"),
            // The standard services and characteristics of the profiles (DeviceProfiles, BLECore codecs).
            (StandardUUID.deviceInformation, "Device Information"),
            (StandardUUID.battery, "Battery"),
            (StandardUUID.heartRate, "Heart Rate"),
            (StandardUUID.manufacturerName, "Manufacturer Name String"),
            (StandardUUID.modelNumber, "Model Number String"),
            (StandardUUID.serialNumber, "Serial Number String"),
            (StandardUUID.firmwareRevision, "Firmware Revision String"),
            (StandardUUID.batteryLevel, "Battery Level"),
            (StandardUUID.heartRateMeasurement, "Heart Rate Measurement"),
            (StandardUUID.bodySensorLocation, "Body Sensor Location"),
            // The profiles' own (docs/board-contract.md).
            (EspPoint.sensorService, "esp-point Sensor"),
            (EspPoint.reading, "esp-point Reading"),
            (EspPoint.logControl, "esp-point Log Control"),
            (EspPoint.logData, "esp-point Log Data"),
            (EspPoint.commandService, "esp-point Command"),
            (EspPoint.command, "esp-point Command"),
            (EspPoint.commandStatus, "esp-point Command Status"),
            (EspPoint.auth, "esp-point Auth"),
            (EspPoint.otaService, "esp-point OTA"),
            (EspPoint.otaControl, "esp-point OTA Control"),
            (EspPoint.otaData, "esp-point OTA Data"),
            (Nano33BLESense.ledService, "nano33 LED"),
            (Nano33BLESense.ledStatus, "nano33 LED Status"),
            (Nano33BLESense.sensorService, "nano33 Sensor"),
            (Nano33BLESense.temperature, "nano33 Temperature"),
            (HeartRateMonitor.alertLevel, "hrm Alert Level"),
        ]
        return Dictionary(entries, uniquingKeysWith: { first, _ in first })
    }()
}

/// Names for the company identifiers BLECore defines (`CompanyIdentifier`'s constants).
extension UUIDNames {
    /// The company's name, or nil when blerig does not know it.
    public static func name(of company: CompanyIdentifier) -> String? {
        switch company {
        case .ericsson: "Ericsson"
        case .apple: "Apple"
        case .nordicSemiconductor: "Nordic Semiconductor"
        case .espressif: "Espressif"
        case .testing: "reserved for tests"
        default: nil
        }
    }
}
