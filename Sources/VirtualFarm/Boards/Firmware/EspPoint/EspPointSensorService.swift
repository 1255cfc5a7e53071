import BLECore
import DeviceProfiles

/// The Sensor service's Reading (read and notify) and the sampling behind it: every `interval` seconds the firmware
/// reads temperature, humidity and the cell voltage, appends the record to the flash log (``EspPointLogService``)
/// and notifies it. The interval is in flash (SET_INTERVAL); the last sample is RAM. The sensors are physics and
/// carry on over resets.
final class EspPointSensorService {
    weak var board: VirtualBoard?
    private let log: EspPointLogService
    private let battery: EspPointBatteryService
    private let clock: EspPointClock

    // MARK: Physics

    private var environment: Environment

    // MARK: Flash

    /// Seconds between samples (SET_INTERVAL).
    private(set) var interval: UInt32

    // MARK: RAM

    /// The last sample taken, which Reading returns (the record itself may have been acknowledged since).
    private var latest: EspPoint.Reading?
    /// Bumped when the sampling timer is re-armed, so the superseded timer does nothing when it fires.
    private var sampleTimer = 0

    init(
        environment: Environment, interval: UInt32, log: EspPointLogService, battery: EspPointBatteryService,
        clock: EspPointClock
    ) {
        self.environment = environment
        self.interval = interval
        self.log = log
        self.battery = battery
        self.clock = clock
    }

    /// SET_INTERVAL: the new interval, counted from now.
    func setInterval(_ seconds: UInt32) {
        interval = seconds
        scheduleSample()
    }

    /// FACTORY_RESET: the log is gone, and Reading no longer returns a record from it.
    func forgetLatest() { latest = nil }

    // MARK: Sampling

    /// Arms the sampling timer for one interval from now, replacing any earlier one.
    func scheduleSample() {
        sampleTimer += 1
        let timer = sampleTimer
        board?.after(.seconds(Int64(interval))) { [weak self] in
            guard let self, sampleTimer == timer else { return }
            sample()
            scheduleSample()
        }
    }

    /// Reads the sensors, appends the record to the flash log and notifies it on Reading.
    private func sample() {
        environment.advance(by: .seconds(Int64(interval)))
        battery.update()
        let reading = appendReading(unixTime: clock.unixTime)
        latest = reading
        guard let board else { return }
        board.notify(EspPoint.reading, in: EspPoint.sensorService, reading.encoded)
        board.refreshAdvertising()
        battery.notifyIfChanged()
    }

    /// Appends a record of the current sensor values to the flash log.
    private func appendReading(unixTime: UInt32) -> EspPoint.Reading {
        log.append(
            unixTime: unixTime, temperature: sensedTemperature, humidity: sensedHumidity,
            batteryMillivolts: battery.cell.millivolts)
    }

    /// The console's `log-fill N` (test firmware): `count` synthetic readings, back-dated one interval apart so the
    /// newest is stamped now.
    func fill(_ count: Int) {
        let now = clock.unixTime
        for i in 0..<count {
            environment.advance(by: .seconds(Int64(interval)))
            let back = UInt64(count - 1 - i) * UInt64(interval)
            let stamp = UInt64(now) > back ? UInt32(UInt64(now) - back) : 0
            latest = appendReading(unixTime: stamp)
        }
        let flash = log.flash
        let state = "count=\(flash.records.count) next_seq=\(flash.nextSequence) dropped=\(flash.dropped)"
        board?.log(.info, "LOG", "filled \(count) \(state)")
        board?.refreshAdvertising()
    }

    // MARK: Reading

    /// The value Reading returns: the last sample, or before the first one a live reading with seq 0 (a
    /// sequence number the log never uses).
    var currentReading: EspPoint.Reading {
        latest
            ?? EspPoint.Reading(
                sequence: 0, unixTime: clock.unixTime, temperature: sensedTemperature, humidity: sensedHumidity,
                batteryMillivolts: battery.cell.millivolts)
    }

    /// The sensor's temperature in hundredths of a degree.
    private var sensedTemperature: Int16 { Int16(clamping: Int((environment.temperature * 100).rounded())) }

    /// The sensor's relative humidity in hundredths of a percent.
    private var sensedHumidity: UInt16 { UInt16(clamping: Int((environment.humidity * 100).rounded())) }
}
