import BLECore
import Orchestrator
import VirtualFarm

extension VirtualFarmConfig.Link {
    /// The settings as the virtual farm's link model takes them.
    var parameters: LinkParameters {
        LinkParameters(
            connectionInterval: .microseconds(Int64((intervalMs * 1_000).rounded())),
            packetsPerEvent: packetsPerEvent, phy: phy.farmPHY, dataLength: dataLength,
            supervisionTimeout: .milliseconds(supervisionTimeoutMs),
            advertisingInterval: .microseconds(Int64((advertisingIntervalMs * 1_000).rounded())),
            peripheralLatency: latency)
    }
}

extension VirtualFarmConfig.PHY {
    var farmPHY: VirtualFarm.PHY {
        switch self {
        case .le1M: .le1M
        case .le2M: .le2M
        case .leCoded: .leCoded
        }
    }
}

extension VirtualFarmConfig.Faults {
    /// The faults the virtual air injects on its own.
    var linkFaults: LinkFaults { LinkFaults(dropsPerHour: dropsPerHour) }
}

extension BoardConfig.VirtualSettings {
    /// The settings as the virtual farm's board model takes them.
    var farmSettings: VirtualBoardSettings {
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
    var farmPattern: HeartRatePattern {
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
