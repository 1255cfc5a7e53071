extension VirtualFarmConfig {
    /// Reads `virtual:`; nil if it is not a mapping. Issues go to `diagnostics`.
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> VirtualFarmConfig? {
        guard var reader = RigMappingReader(node, noun: "virtual", diagnostics: diagnostics) else { return nil }
        var config = VirtualFarmConfig(at: node.location)
        config.link.location = node.location
        config.faults.location = node.location
        if let seed = reader.integer("seed", in: UInt64.min...UInt64.max) { config.seed = seed }
        if let link = reader.value("link") { config.link = Link.decode(link, diagnostics: diagnostics) ?? config.link }
        if let faults = reader.value("faults") {
            config.faults = Faults.decode(faults, diagnostics: diagnostics) ?? config.faults
        }
        if let airs = reader.choice("airs", noun: "airs setting", Airs.self) { config.airs = airs }
        reader.rejectUnknownKeys()
        return config
    }
}

extension VirtualFarmConfig.Link {
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "link", diagnostics: diagnostics) else { return nil }
        var link = Self(at: node.location)
        let interval = reader.number("interval_ms", in: Self.intervalRange, step: Self.intervalStep, unit: "ms")
        let packets = reader.integer("packets_per_event", in: Self.packetsPerEventRange)
        let phy = reader.choice("phy", noun: "phy", VirtualFarmConfig.PHY.self)
        let dataLength = reader.integer("data_length", in: Self.dataLengthRange)
        let timeout = reader.read("supervision_timeout_ms") { node throws(RigFileIssue) in
            let bounds = Self.supervisionTimeoutRange
            let range = Double(bounds.lowerBound)...Double(bounds.upperBound)
            return Int(
                try node.number(
                    for: "supervision_timeout_ms", in: range,
                    step: Double(Self.supervisionTimeoutStep), unit: "ms"))
        }
        let advertising = reader.number(
            "adv_interval_ms", in: Self.advertisingIntervalRange,
            step: Self.advertisingIntervalStep, unit: "ms")
        let latency = reader.integer("latency", in: Self.latencyRange)
        reader.rejectUnknownKeys()

        link.intervalMs = interval ?? link.intervalMs
        link.packetsPerEvent = packets ?? link.packetsPerEvent
        link.phy = phy ?? link.phy
        link.dataLength = dataLength ?? link.dataLength
        link.supervisionTimeoutMs = timeout ?? link.supervisionTimeoutMs
        link.advertisingIntervalMs = advertising ?? link.advertisingIntervalMs
        link.latency = latency ?? link.latency

        // Core 5.4 Vol 6 Part B §4.5.2: connSupervisionTimeout > (1 + connPeripheralLatency) × connInterval × 2.
        // Checked only when the values involved were written and valid, so one mistake gives one message.
        let wroteAny = interval != nil || timeout != nil || latency != nil
        let allValid =
            (interval != nil || !reader.contains("interval_ms"))
            && (timeout != nil || !reader.contains("supervision_timeout_ms"))
            && (latency != nil || !reader.contains("latency"))
        let minimum = Double(1 + link.latency) * link.intervalMs * 2
        if wroteAny, allValid, Double(link.supervisionTimeoutMs) <= minimum {
            let at = node["supervision_timeout_ms"]?.location ?? node["interval_ms"]?.location ?? node.location
            diagnostics.record(
                .outOfRange,
                "'supervision_timeout_ms' must be more than (1 + latency) × interval_ms × 2 = "
                    + "\(RigWording.number(minimum)) ms, found \(link.supervisionTimeoutMs)"
                    + (timeout == nil ? " (the default)" : ""), at: at)
        }
        return link
    }
}

extension VirtualFarmConfig.Faults {
    static func decode(_ node: RigNode, diagnostics: RigDiagnostics) -> Self? {
        guard var reader = RigMappingReader(node, noun: "faults", diagnostics: diagnostics) else { return nil }
        var faults = Self(at: node.location)
        if let drops = reader.number("drops_per_hour", in: Self.dropsPerHourRange) { faults.dropsPerHour = drops }
        reader.rejectUnknownKeys()
        return faults
    }
}
