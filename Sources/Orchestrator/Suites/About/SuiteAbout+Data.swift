import Reports

// What the data suites say about themselves in `blerig suites`: ota and sync.

extension OTASuite {
    static var about: SuiteAbout {
        SuiteAbout(
            name: name,
            summary: "(esp-point) firmware updates through the central stack's OTA sender, with the contract's "
                + "failure modes injected: resumes, CRC corruption, power loss, bad banks, signatures, rollback",
            options: [
                .init("image_kib", "\(defaults.imageSize / 1024)", "size of each generated image, KiB"),
                .init("window", "\(defaults.window)", "frames in flight before an ACK is awaited"),
                .init("batch", "\(defaults.batch)", "frames per ACK"),
            ],
            metrics: [
                .init(
                    "ota.duration_s", .seconds, [.value],
                    "update asked for → outcome known: connect, START (the board erases the bank), frames, "
                        + "FINISH (verify), ACTIVATE, reboot, reconnect, Firmware Revision read"),
                .init(
                    "ota.throughput_kBps", .kilobytesPerSecond, [.value],
                    "image bytes ÷ (START answered ok → ACK of the last frame), 1 kB = 1000 B; window <window>, "
                        + "batch <batch>", varies: true),
                .init(
                    "ota.efficiency", .ratio, [.value],
                    "ota.throughput_kBps ÷ the modelled link's unacknowledged capacity, packets_per_event × "
                        + "(data_length − 7) B per connection interval = <capacity> kB/s (virtual farm only)",
                    varies: true),
                .init(
                    "ota.resumes", .count, [.value],
                    "sessions that took the update up again from the board's persisted next_seq after the link was "
                        + "lost"),
                .init("ota.naks", .count, [.value], "NAK notifications the board sent (bad CRC, gap, flash write error)"),
                .init(
                    "ota.frames_resent", .count, [.value],
                    "frames sent more than once (rewinds after NAKs, timeouts, resumes)"),
                .init(
                    "ota.success_rate", .ratio, [Statistic("first_try"), Statistic("after_resume")],
                    "of the <n> updates expected to commit (those with injected faults included): first_try, the "
                        + "share that committed without a resume or re-upload; after_resume, the share that committed "
                        + "at all", varies: true),
            ])
    }
}

extension SyncSuite {
    static var about: SuiteAbout {
        let d = defaults
        return SuiteAbout(
            name: name,
            summary: "(esp-point) the phone's sync queue over days of bench time: offline queueing, upload through "
                + "outages and failures, dead letters, ring overflow, and an accounting of every reading",
            options: [
                .init("offline_days", OptionText.days(d.offline), "how long the phone is offline while pulling"),
                .init("away_days", OptionText.days(d.away), "how long the phone stays away from the board"),
                .init("pull_interval_h", OptionText.hours(d.pullEvery), "time between log pulls"),
                .init("sample_interval_s", "\(d.sampleInterval) s", "the board's sampling interval"),
                .init("refused_readings", "\(d.refusedReadings)", "readings the ingest refuses (dead-lettered)"),
                .init("failure_rate", RigWording.number(d.failureRate), "share of upload requests that fail"),
                .init("outage_min", OptionText.minutes(d.outage), "ingest outage when the phone comes back online"),
                .init(
                    "ingest_url", "the rig's own", "an http(s) ingest to upload to on a wall-clock bench "
                        + "(the injected faults are then skipped)"),
            ],
            metrics: [
                .init(
                    "sync.queued_offline", .count, [.value],
                    "readings pulled from the board and queued while the phone was offline"),
                .init("sync.offline_s", .seconds, [.value], "time the phone was offline (reachability off), bench time"),
                .init(
                    "sync.upload_attempts", .count, [.value],
                    "batches of at most 50 sent to the ingest to upload the offline backlog"),
                .init(
                    "sync.failed_attempts", .count, [.value],
                    "of those, batches that failed as a whole (outage, injected errors)"),
                .init("sync.dead_lettered", .count, [.value], SyncRun.definitions.dead),
                .init("sync.ring_dropped", .count, [.value], SyncRun.definitions.ring),
                .init(
                    "sync.readings", .count, [.value],
                    "readings in the board's seq range during the suite (first STATUS → last READ)"),
                .init("sync.readings_lost", .count, [.value], SyncRun.definitions.lost),
                .init("sync.duplicates", .count, [.value], SyncRun.definitions.duplicates),
                .init("sync.latency_s", .seconds, [.p50, .p95, .max, .count], SyncRun.definitions.latency),
            ])
    }
}
