import Reports

// What the connection suites say about themselves in `blerig suites`: discovery, handshake, commands,
// notifications. Definitions that the suites keep as constants are used from there.

extension DiscoverySuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "the board advertises what its profile says, and its GATT table holds every service and "
                + "characteristic the profile requires",
            options: [.init("timeout_s", OptionText.seconds(defaults.timeout), "how long to wait for an advertisement")],
            metrics: [
                .init(
                    "discovery.first_seen_ms", .milliseconds, [.value],
                    "scan start → first advertising report from the board"),
                .init("gatt.services", .count, [.value], "primary services discovered"),
                .init("gatt.characteristics", .count, [.value], "characteristics discovered in all primary services"),
                .init("gatt.mtu", .bytes, [.value], "ATT_MTU after the exchange"),
            ])
    }
}

extension HandshakeSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "connections one after another, each brought to ready and closed, cold (nothing cached); an "
                + "esp-point is reconnected warm after each, with its GATT table cached",
            options: [.init("connections", "\(defaults.connections)", "cold handshakes per board")],
            metrics: [
                .latency("handshake.connect_ms", connectDefinition),
                .latency("handshake.ready_ms", readyDefinition),
                .latency("handshake.ready_warm_ms", warmDefinition),
                .init("handshake.warm_to_cold", .ratio, [.value], "handshake.ready_warm_ms p50 ÷ handshake.ready_ms p50"),
                .init("handshake.failures", .count, [.value], "connections that did not reach ready"),
                .init(
                    "gatt_cache.warm_hits", .count, [.value],
                    "reconnects whose Database Hash matched the table cached by the handshake before"),
                .init(
                    "gatt_cache.warm_misses", .count, [.value],
                    "reconnects that discovered although the table was cached"),
            ])
    }
}

extension CommandsSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "switches the board's light on and off and times each write; an esp-point authenticates "
                + "first, confirms each command on Command Status and must refuse a bad argument; a board described as data "
                + "gets its profile's writes, each held to the response or notification it must cause",
            options: [.init("repetitions", "\(defaults.repetitions)", "on/off pairs per board")],
            metrics: [.latency("gatt.write_rtt_ms", rttDefinition)])
    }
}

extension NotificationsSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "listens to the board's periodic notification (every second, or a described board's rate, its "
                + "values decoded and held to their range) and reports its rate, gaps and throughput",
            options: [
                .init("duration_s", OptionText.seconds(defaults.duration), "how long to listen"),
                .init(
                    "interval_after_s", "\(defaults.intervalAfter) s",
                    "an esp-point's sample interval after the listening (it samples every second during it)"),
            ],
            metrics: [
                .init(
                    "notify.count", .count, [.value], "notifications received in a listening window of <duration_s> s",
                    varies: true),
                .init("notify.rate_hz", MetricUnit("Hz"), [.value], "notifications received ÷ listening time"),
                .init("notify.gaps", .count, [.value], "intervals between notifications longer than 1.5 periods"),
                .init("notify.throughput_kBps", .kilobytesPerSecond, [.value], "notified value bytes ÷ listening time"),
            ])
    }
}
