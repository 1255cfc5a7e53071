import BLECore
import DeviceProfiles

/// What the app's alert policy saw and wrote while it followed an hrm's heart rate.
public struct AlertRun: Sendable {
    /// One Alert Level write with the rate that caused it and the light before it.
    public struct Write: Sendable, Hashable {
        public var alert: HeartRateMonitor.Alert
        public var bpm: Int
        public var before: HeartRateMonitor.Alert
    }

    /// The first measurement the policy could take (after the light was set to a known state).
    public var start: RigInstant
    public var measurements = 0
    public var writes: [Write] = []
}

extension AppCentral {
    /// Raises alerts from heart rate for `duration` of the clock: as one item of work, sets the light off (the
    /// policy's starting state), then feeds every Heart Rate Measurement through `policy` and writes Alert Level
    /// when the policy decides.
    public func raiseAlerts(for duration: Duration, policy: AlertPolicy = AlertPolicy()) async throws -> AlertRun {
        try await perform("raising alerts from heart rate") { session in
            let client = HeartRateClient(session: session)
            try await client.setAlert(.turnOff)
            var policy = policy
            let start = session.clock.now
            let end = start.advanced(by: duration)
            var run = AlertRun(start: start)
            _ = try client.takeMeasurements()
            while session.clock.now < end {
                let (measurement, at) = try await client.nextMeasurement(within: .seconds(5))
                guard at < end else { break }
                run.measurements += 1
                let before = policy.current
                if let alert = try await client.apply(&policy, to: measurement) {
                    run.writes.append(
                        AlertRun.Write(alert: alert, bpm: Int(measurement.beatsPerMinute), before: before))
                }
            }
            return run
        }
    }
}
