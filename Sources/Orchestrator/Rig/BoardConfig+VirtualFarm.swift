import VirtualFarm

extension BoardConfig.VirtualSettings {
    /// The settings as the virtual farm's board model takes them.
    public var farmSettings: VirtualBoardSettings {
        VirtualBoardSettings(
            address: address, advertises: advertising,
            advertisingInterval: advertisingIntervalMs.map { .microseconds(Int64(($0 * 1_000).rounded())) },
            batteryPercent: batteryPercent, temperature: temperatureC, firmware: firmware.version,
            heartRate: heartRate?.farmPattern ?? HeartRatePattern(), logCapacity: firmware.logCapacity,
            sampleInterval: UInt32(firmware.sampleIntervalS), rssi: Int8(rssiDBm))
    }
}

extension BoardConfig.HeartRate {
    /// The pattern as the virtual farm's hrm model takes it.
    public var farmPattern: HeartRatePattern {
        let shape: HeartRatePattern.Shape =
            switch pattern {
            case .steady: .steady
            case .ramp: .ramp
            case .spikes: .spikes
            case .sine: .sine
            }
        return HeartRatePattern(
            shape: shape, base: baseBPM, peak: peakBPM,
            period: .microseconds(Int64((periodS * 1e6).rounded())), rrIntervals: rrIntervals,
            energyExpended: energyExpended)
    }
}

extension VirtualFarmConfig.Faults {
    /// The faults the virtual air injects on its own.
    public var linkFaults: LinkFaults { LinkFaults(dropsPerHour: dropsPerHour) }
}
