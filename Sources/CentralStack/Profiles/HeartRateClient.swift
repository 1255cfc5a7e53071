import BLECore
import DeviceProfiles

/// The app's heart-rate logic: decode measurements and drive the alert light with the hysteresis policy.
public struct HeartRateClient: Sendable {
    public let session: ProfileSession

    public init(session: ProfileSession) { self.session = session }

    /// Measurements received so far and not yet taken, decoded; undecodable ones are returned as errors so a
    /// misbehaving sensor is reported, not dropped.
    public func takeMeasurements() throws(SessionError) -> [(
        measurement: Result<HeartRateMeasurement, DecodingError>, at: RigInstant
    )] {
        try session.inbox(StandardUUID.heartRateMeasurement).drain().map { event in
            (Result { () throws(DecodingError) in try HeartRateMeasurement(decoding: event.value) }, event.received)
        }
    }

    /// The next measurement within `timeout`.
    public func nextMeasurement(
        within timeout: Duration
    ) async throws(SessionError) -> (HeartRateMeasurement, RigInstant) {
        let event = try await session.inbox(StandardUUID.heartRateMeasurement)
            .next(within: timeout, clock: session.clock, waitingFor: "Heart Rate Measurement")
        do { return (try HeartRateMeasurement(decoding: event.value), event.received) } catch {
            throw .protocolViolation("Heart Rate Measurement: \(error)")
        }
    }

    public func bodySensorLocation() async throws(SessionError) -> BodySensorLocation {
        let bytes = try await session.read(StandardUUID.bodySensorLocation)
        do { return try BodySensorLocation(decoding: bytes) } catch { throw .protocolViolation("\(error)") }
    }

    public func setAlert(_ alert: HeartRateMonitor.Alert) async throws(SessionError) {
        try await session.write(Array(alert.rawValue.utf8), to: HeartRateMonitor.alertLevel)
    }

    /// Applies `policy` to a measurement and writes the alert when it changes; returns what was written.
    public func apply(
        _ policy: inout AlertPolicy, to measurement: HeartRateMeasurement
    ) async throws(SessionError) -> HeartRateMonitor.Alert? {
        guard let alert = policy.observe(bpm: Int(measurement.beatsPerMinute)) else { return nil }
        try await setAlert(alert)
        return alert
    }
}
