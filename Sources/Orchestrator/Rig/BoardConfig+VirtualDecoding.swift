import DeviceProfiles

extension BoardConfig.VirtualSettings {
    /// Reads `virtual:` under a board of `profile` (nil when the profile itself was unreadable: the settings are
    /// still checked, against the rules common to all profiles).
    static func decode(_ node: RigNode, profile: Profile?, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "virtual", diagnostics: diagnostics) else { return nil }
        var settings = Self(profile: profile ?? .espPoint, at: node.location)
        settings.address = reader.read("address") { node throws(RigFileIssue) in
            try node.deviceAddress(for: "address")
        }
        settings.advertising = reader.bool("advertising") ?? settings.advertising
        settings.advertisingIntervalMs = reader.number(
            "adv_interval_ms",
            in: VirtualFarmConfig.Link.advertisingIntervalRange, step: VirtualFarmConfig.Link.advertisingIntervalStep,
            unit: "ms")
        settings.batteryPercent = reader.number("battery_percent", in: 0...100) ?? settings.batteryPercent
        settings.temperatureC = reader.number("temperature_c", in: -40...85, unit: "°C") ?? settings.temperatureC
        settings.rssiDBm = reader.integer("rssi_dbm", in: Self.rssiRange) ?? settings.rssiDBm
        if let heartRate = reader.value("heart_rate") {
            if let profile, profile != .hrm, profile.data?.measuresHeartRate != true {
                diagnostics.record(
                    .invalidValue,
                    "'heart_rate' applies only to hrm boards"
                        + (profile.data == nil ? "" : " and described boards with a heart-rate-measurement")
                        + ", not \(profile.rawValue)",
                    at: reader.keyLocation("heart_rate") ?? heartRate.location)
            } else {
                settings.heartRate =
                    BoardConfig.HeartRate.decode(heartRate, diagnostics: diagnostics)
                    ?? settings.heartRate
            }
        }
        if let firmware = reader.value("firmware") {
            settings.firmware =
                BoardConfig.Firmware.decode(firmware, profile: profile, diagnostics: diagnostics)
                ?? settings.firmware
        }
        reader.rejectUnknownKeys()
        return settings
    }
}

extension BoardConfig.HeartRate {
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "heart_rate", diagnostics: diagnostics) else { return nil }
        let pattern = reader.choice("pattern", noun: "heart rate pattern", Pattern.self) ?? Self.defaultPattern
        let base = reader.integer("base_bpm", in: Self.bpmRange) ?? Self.defaultBaseBPM
        let peak = reader.integer("peak_bpm", in: Self.bpmRange)
        let period = reader.number("period_s", in: Self.periodRange, unit: "s")
        let rr = reader.bool("rr_intervals") ?? true
        let energy = reader.bool("energy_expended") ?? true
        reader.rejectUnknownKeys()
        if pattern == .steady {
            for key in ["peak_bpm", "period_s"] where reader.value(key) != nil {
                diagnostics.record(
                    .invalidValue,
                    "'\(key)' has no effect with pattern steady (use ramp, spikes or sine, or remove it)",
                    at: reader.keyLocation(key) ?? node.location)
            }
        } else if let peak, peak < base, let at = node["peak_bpm"]?.location {
            diagnostics.record(.outOfRange, "'peak_bpm' must be at least base_bpm (\(base)), found \(peak)", at: at)
        }
        return Self(
            pattern: pattern, baseBPM: base, peakBPM: peak, periodS: period ?? Self.defaultPeriodS,
            rrIntervals: rr, energyExpended: energy, at: node.location)
    }
}

extension BoardConfig.Firmware {
    /// Reads `firmware: 1.5.0` or `firmware: {version: 1.5.0, sample_interval_s: 600, ...}`.
    static func decode(_ node: RigNode, profile: Profile?, diagnostics: RigDiagnostics) -> Self? {
        var firmware = Self(at: node.location)
        if node.scalar != nil {
            do {
                firmware.version = try node.firmwareVersion(for: "firmware")
                return firmware
            } catch {
                diagnostics.record(error)
                return nil
            }
        }
        guard var reader = RigMappingReader(node, noun: "firmware", diagnostics: diagnostics) else { return nil }
        firmware.version =
            reader.read("version") { node throws(RigFileIssue) in
                try node.firmwareVersion(for: "version")
            } ?? firmware.version
        firmware.sampleIntervalS =
            reader.integer("sample_interval_s", in: Self.sampleIntervalRange)
            ?? firmware.sampleIntervalS
        firmware.logCapacity = reader.integer("log_capacity", in: Self.logCapacityRange) ?? firmware.logCapacity
        reader.rejectUnknownKeys()
        if let profile, profile != .espPoint {
            for key in ["sample_interval_s", "log_capacity"] where reader.value(key) != nil {
                diagnostics.record(
                    .invalidValue,
                    "'\(key)' applies only to esp-point boards, not \(profile.rawValue)",
                    at: reader.keyLocation(key) ?? node.location)
            }
        }
        return firmware
    }
}

extension RigNode {
    /// A firmware version `major.minor.patch` (u8.u8.u16).
    public func firmwareVersion(for key: String) throws(RigFileIssue) -> FirmwareVersion {
        let text = try string(for: key)
        guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let version = FirmwareVersion(text) else {
            throw issue(
                .invalidValue,
                "'\(key)' must be a version major.minor.patch such as 1.4.2, found \(RigWording.quoted(text))")
        }
        return version
    }
}
