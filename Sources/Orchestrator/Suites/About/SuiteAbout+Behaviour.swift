import Reports

// What the behaviour suites say about themselves in `blerig suites`: alerts, pairing, soak, restore.

extension AlertsSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "(hrm) the app's alert policy driven by live heart-rate notifications: Alert Level written on "
                + "crossings of 140 and 125 bpm only, checked against what the board's console shows",
            options: [.init("duration_s", OptionText.seconds(defaults.duration), "how long to drive the policy")],
            metrics: [
                .init("alerts.measurements", .count, [.value], "Heart Rate Measurements fed through the alert policy"),
                .init("alerts.raised", .count, [.value], "redAlert writes: the rate rose above 140 bpm with the light off"),
                .init("alerts.cleared", .count, [.value], "turnOff writes: the rate fell below 125 bpm with the light on"),
                .init(
                    "alerts.board_received", .count, [.value],
                    "Alert Level writes the board's console shows during the window"),
                .init(
                    "alerts.repeated", .count, [.value],
                    "consecutive identical alerts on the board's console (a repeated write)"),
            ])
    }
}

extension PairingSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "(esp-point) pairing only in pairing mode; an unpaired and a wrong-key central have every "
                + "protected write refused; the rig's key unlocks them",
            options: [],
            metrics: [
                .init(
                    "pairing.protected_writes_tried", .count, [.value], "protected writes a <unpaired|wrong-key> central tried",
                    varies: true),
                .init(
                    "pairing.protected_writes_accepted", .count, [.value],
                    acceptedDefinition + " (<unpaired|wrong-key> central)", varies: true),
            ])
    }
}

extension SoakSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "holds a link through the app central, kept connected, with periodic reads, reconnecting after "
                + "every drop; reports the drop rate with exact 95 % intervals, by HCI reason",
            options: [
                .init("duration_h", OptionText.hours(defaults.duration), "bench time to hold the link"),
                .init("traffic_interval_s", OptionText.seconds(defaults.trafficInterval), "time between reads"),
                .init(
                    "expected_drops_per_hour", "none",
                    "when set, the check fails if this rate lies outside the measured 95 % interval"),
            ],
            metrics: [
                .init(
                    "link.drop_rate", .perHour, [.value, Statistic("ci95_lower"), Statistic("ci95_upper")],
                    SoakTally.perHourDefinition),
                .init(
                    "link.drop_rate", .perHour, [Statistic("reason_<hci>")],
                    SoakTally.perHourDefinition + "; broken down by HCI reason (<code> <name>)", varies: true),
                .init(
                    "link.drop_rate_per_session", MetricUnit("/session"),
                    [.value, Statistic("ci95_lower"), Statistic("ci95_upper")], SoakTally.perSessionDefinition),
                .latency("link.reconnect_ms", "unexpected link-down noticed → link up again (session ready)"),
                .init(
                    "link.drops", .count, [.count], "unexpected disconnects (not asked for by the central) during the soak"),
                .init(
                    "link.connection_hours", MetricUnit("h"), [.value],
                    "sum over links of link-up → link-down on the bench clock"),
                .init("link.sessions", .count, [.count], "links brought to ready by the connection state machine"),
            ])
    }
}

extension RestoreSuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "state restoration: an app central abandoned mid-connection; a second one restores its saved "
                + "state, reconnects to the known board without scanning or pairing, and takes the work over",
            options: [],
            metrics: [
                .init(
                    "restore.reconnect_ms", .milliseconds, [.value],
                    "second central instance started from the saved state → session with the board ready")
            ])
    }
}
