/// A radio that can be switched off and on, as a phone's Bluetooth toggle does: switching off ends every scan and
/// link of the radio (peers see reason 0x15, remote device power off), and until it is on again a scan finds
/// nothing and a connect throws ``CentralError/radioUnavailable(_:)``. The central stack watches
/// ``powerStates()``, because nothing restarts a scan after radio off → on unless the app does.
public protocol RadioPower: Sendable {
    var isPoweredOn: Bool { get }
    /// The power state now, then every change, until the consumer stops.
    func powerStates() -> AsyncStream<Bool>
    /// Switches the radio; returns once every link and scan is ended (off) or the radio can be used (on).
    func setPowered(_ on: Bool) async throws(CentralError)
}
