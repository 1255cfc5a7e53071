import BLECore
import DeviceProfiles

/// The app's logic for the Arduino Nano 33 BLE Sense: the LED and the temperature sensor.
public struct Nano33Client: Sendable {
    public let session: ProfileSession

    public init(session: ProfileSession) { self.session = session }

    /// Writes the LED Status characteristic (with response): 1 on, 0 off.
    public func setLED(on: Bool) async throws(SessionError) {
        try await session.write([on ? 1 : 0], to: Nano33BLESense.ledStatus)
    }

    /// Reads the temperature in °C.
    public func temperature() async throws(SessionError) -> Int8 {
        let bytes = try await session.read(Nano33BLESense.temperature)
        guard bytes.count == 1 else { throw .protocolViolation("Temperature has \(bytes.count) bytes; the contract says 1") }
        return Int8(bitPattern: bytes[0])
    }

    /// Temperature notifications received so far and not yet taken.
    public func takeTemperatureNotifications() throws(SessionError) -> [(value: Int8, at: RigInstant)] {
        try session.inbox(Nano33BLESense.temperature).drain().compactMap { event in
            event.value.count == 1 ? (Int8(bitPattern: event.value[0]), event.received) : nil
        }
    }
}
