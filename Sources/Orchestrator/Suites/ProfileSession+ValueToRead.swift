import BLECore
import CentralStack
import DeviceProfiles

extension ProfileSession {
    /// The value an app reads as routine work on this session (the soak's traffic, the restored work): an esp-point's
    /// reading, a Nano's temperature, an hrm's battery level, and for a board described as data its first required
    /// readable characteristic; nil for a described board with none.
    var valueToRead: BluetoothUUID? {
        switch spec.profile {
        case .espPoint: EspPoint.reading
        case .nano33BLESense: Nano33BLESense.temperature
        case .hrm: StandardUUID.batteryLevel
        case .described(let data):
            spec.services.flatMap { $0.characteristics }.first {
                data.characteristic($0)?.characteristic.properties.contains(.read) == true
            }
        }
    }
}
