import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Synchronization
import Testing

@testable import VirtualFarm

/// The esp-point's OTA on the board model, driven by the central stack's sender over the virtual link: banks,
/// persistence, flash timing, every failure mode of the contract and the console lines that report them.
@Suite("esp-point OTA on the virtual farm")
struct EspPointOTATests {
    typealias OTA = EspPoint.OTA

    /// A temporary image of `size` bytes (signed when `key` is given), removed by the caller's `defer`.
    static func image(
        size: Int, version: FirmwareVersion = FirmwareVersion(1, 5, 0), seed: UInt64 = 1, key: OTASigningKey? = nil,
        tamper: Bool = false
    ) throws -> OTAImageFile {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-ota-\(UUID().uuidString).bin")
            .path
        try OTAImageBuilder.write(to: path, size: size, seed: seed, signingKey: key)
        if tamper { try OTAImageBuilder.tamper(path, at: UInt64(size / 2)) }
        return try OTAImageFile(path: path, version: version)
    }

    static func remove(_ image: OTAImageFile) { try? FileManager.default.removeItem(atPath: image.path) }

    /// Uploads `image` through the sender, authenticating every session with the rig's key.
    static func upload(
        _ image: OTAImageFile, rig: EspRig, window: Int = 4, batch: UInt8 = 10,
        progress: (@Sendable (OTATransfer.Progress) async -> Void)? = nil
    ) async throws -> OTAReport {
        let transfer = OTATransfer(image: image, options: .init(window: window, batch: batch), clock: rig.sim.clock)
        return try await transfer.run(
            connect: { body in try await rig.withAuthenticatedClient { client in try await body(client.session) } },
            progress: progress)
    }

    static func bootLines(_ rig: EspRig) -> [String] {
        rig.board.console.compactMap { entry -> String? in
            guard case let .boot(fw, bank, reset, _) = entry.line else { return nil }
            return "\(fw) \(bank ?? "-") \(reset.rawValue)"
        }
    }

    @Test(
        "a clean update commits bank B: BOOT, the committed line, Firmware Revision and the pending flag as the contract says"
    )
    func cleanUpdate() async throws {
        let image = try Self.image(size: 20_000)
        defer { Self.remove(image) }
        let flags = Mutex<[Bool]>([])
        let (report, lines, boots, revision, bank) = try await EspRig.run { rig in
            try await rig.pair()
            let report = try await Self.upload(image, rig: rig) { _ in
                let pending = rig.firmware.manufacturerFlags.contains(.otaSessionPending)
                flags.withLock { $0.append(pending) }
            }
            let revision = try await rig.withClient { try await $0.identity().firmware }
            return (report, rig.consoleText, Self.bootLines(rig), revision, rig.firmware.ota.flash.banks.running)
        }
        #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)))
        #expect(revision == "1.5.0")
        #expect(bank == .b)
        #expect(boots == ["1.4.2 A POWERON", "1.5.0 B SW"])
        #expect(lines.contains("OTA committed bank=B fw=1.5.0"))
        #expect(lines.contains { $0.hasSuffix("I/OTA: batch 8 ok next_seq=85") })
        #expect(report.statistics.resumes == 0 && report.statistics.naks == 0)
        // The flag is set while frames flow (after START) and clear after the commit.
        #expect(flags.withLock { $0.contains(true) })
        #expect(flags.withLock { $0.first } == false)
    }

    @Test(
        "START answers status 3 below 20 % battery, 1 for an image larger than a bank, and ATT 0x05 before authentication"
    )
    func startRefusals() async throws {
        let lowBattery = VirtualBoardSettings(batteryPercent: 12)
        let answers = try await EspRig.run(settings: lowBattery) { rig in
            try await rig.pair()
            return try await rig.withClient { client in
                let unauthenticated = await writeError(
                    OTA.Request.start(.init(size: 100, crc32: 1, version: .init(1, 5, 0), batch: 10, window: 1))
                        .encoded,
                    to: EspPoint.otaControl, on: client)
                try await client.authenticate(key: EspRig.key)
                let inbox = try await client.session.ensureSubscribed(EspPoint.otaControl)
                var results: [OTA.Notification] = []
                for size: UInt32 in [100, 13 * 1_048_576] {
                    let start = OTA.Request.start(
                        .init(size: size, crc32: 1, version: .init(1, 5, 0), batch: 10, window: 1))
                    try await client.session.write(start.encoded, to: EspPoint.otaControl)
                    let event = try await inbox.next(
                        within: .seconds(2), clock: client.session.clock, waitingFor: "START result")
                    results.append(try OTA.Notification(decoding: event.value))
                }
                return (unauthenticated, results)
            }
        }
        #expect(answers.0 == .insufficientAuthentication)
        #expect(
            answers.1 == [
                .startResult(status: .batteryLow, nextSeq: 0, maxPayload: 236),
                .startResult(status: .tooLarge, nextSeq: 0, maxPayload: 236),
            ])
    }

    @Test(
        "a corrupted frame is NAKed with reason 1, a failed flash write with reason 3; the sender rewinds and commits")
    func naks() async throws {
        let image = try Self.image(size: 30_000)
        defer { Self.remove(image) }
        for (fault, reason) in [("crc", UInt8(1)), ("flash", UInt8(3))] {
            let (report, lines) = try await EspRig.run { rig in
                try await rig.pair()
                rig.board.type("ota-fault \(fault)")
                let report = try await Self.upload(image, rig: rig, window: 2)
                return (report, rig.consoleText)
            }
            #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)), "\(fault)")
            #expect(report.statistics.naksByReason == [reason: 1], "\(fault)")
            #expect(report.statistics.framesResent >= 1, "\(fault)")
            #expect(lines.contains { $0.contains("W/OTA: nak expected_seq=0 reason=") }, "\(fault)")
        }
    }

    @Test("a frame out of order is NAKed with reason 2 and later frames are discarded until the expected one")
    func outOfOrder() async throws {
        let notes = try await EspRig.run { rig in
            try await rig.pair()
            return try await rig.withAuthenticatedClient { client in
                let inbox = try await client.session.ensureSubscribed(EspPoint.otaControl)
                let start = OTA.Request.start(
                    .init(size: 2_000, crc32: 7, version: .init(1, 5, 0), batch: 2, window: 1))
                try await client.session.write(start.encoded, to: EspPoint.otaControl)
                _ = try await inbox.next(within: .seconds(2), clock: client.session.clock, waitingFor: "START")
                let payload = [UInt8](repeating: 0xAB, count: 236)
                for seq: UInt32 in [0, 2, 3, 1] {
                    try await client.session.writeWithoutResponse(
                        OTA.Frame(seq: seq, payload: payload).encoded, to: EspPoint.otaData)
                }
                var notes: [OTA.Notification] = []
                for _ in 0..<2 {
                    let event = try await inbox.next(
                        within: .seconds(2), clock: client.session.clock, waitingFor: "OTA")
                    notes.append(try OTA.Notification(decoding: event.value))
                }
                return notes
            }
        }
        #expect(notes == [.nak(expectedSeq: 1, reason: .outOfOrder), .ack(nextSeq: 2)])
    }

    @Test("the link dropped mid-way and before the last frame: the update resumes from the persisted next_seq")
    func linkDrops() async throws {
        let image = try Self.image(size: 30_000)
        defer { Self.remove(image) }
        for fault in ["drop 60", "drop last"] {
            let report = try await EspRig.run { rig in
                try await rig.pair()
                rig.board.type("ota-fault \(fault)")
                return try await Self.upload(image, rig: rig)
            }
            #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)), "\(fault)")
            #expect(report.statistics.resumes == 1, "\(fault)")
            // 128 frames; the persisted next_seq is a batch boundary at or before the drop.
            #expect(report.statistics.lastStartSeq == (fault == "drop 60" ? 60 : 120), "\(fault)")
        }
    }

    @Test("power lost mid-write: the record survives, the torn tail is erased again, the update resumes and verifies")
    func powerLossMidWrite() async throws {
        let image = try Self.image(size: 40_000)
        defer { Self.remove(image) }
        let (report, persisted) = try await EspRig.run { rig in
            try await rig.pair()
            let board = rig.board
            let sim = rig.sim
            let persisted = Mutex<UInt32?>(nil)
            let report = try await Self.upload(image, rig: rig) { p in
                guard p.acknowledged >= 85, persisted.withLock({ $0 }) == nil else { return }
                board.powerOff()
                let nextSeq = rig.firmware.ota.flash.record?.nextSeq
                persisted.withLock { $0 = nextSeq }
                try? await sim.clock.sleep(for: .seconds(1))
                board.powerOn()
            }
            return (report, persisted.withLock { $0 })
        }
        #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)))
        #expect(report.statistics.resumes == 1)
        #expect(persisted.map { $0 % 10 == 0 && $0 >= 80 } == true)
        #expect(report.statistics.lastStartSeq == persisted)
    }

    @Test("a corrupted bank fails FINISH with 4, and uploading again cures it")
    func corruptedBank() async throws {
        let image = try Self.image(size: 10_000)
        defer { Self.remove(image) }
        let (report, lines) = try await EspRig.run { rig in
            try await rig.pair()
            rig.board.type("ota-fault corrupt")
            return (try await Self.upload(image, rig: rig), rig.consoleText)
        }
        #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)))
        #expect(report.statistics.reuploads == 1)
        #expect(
            lines.contains {
                $0.hasSuffix("E/OTA: finish failed: flash verify failed; the update is dropped (upload again)")
            })
    }

    @Test("ota-fault takes crc and drop with a frame count, crc alone, and refuses a count that is missing, negative or not a number")
    func faultCommands() async throws {
        let (faults, console) = try await EspRig.run { rig in
            var faults: [OTAFaults] = []
            for line in ["ota-fault crc", "ota-fault crc 11", "ota-fault drop 7", "ota-fault none"] {
                rig.board.type(line)
                faults.append(rig.firmware.ota.flash.faults)
            }
            for line in ["ota-fault crc -1", "ota-fault drop x", "ota-fault drop", "ota-fault flash 3"] {
                rig.board.type(line)
            }
            faults.append(rig.firmware.ota.flash.faults)
            return (faults, rig.consoleText)
        }
        #expect(faults.map(\.crcAfterFrames) == [0, 11, 11, nil, nil])
        #expect(faults.map(\.dropAfterFrames) == [nil, nil, 7, nil, nil])
        #expect(console.filter { $0.contains("fault armed:") }.count == 4)
        #expect(console.filter { $0.contains("usage: ota-fault crc [N]|") }.count == 4)
    }

    @Test("with a signing key the board refuses tampered and unsigned images with FINISH 3 and takes a signed one")
    func signatures() async throws {
        let key = try OTASigningKey(seed: Array(repeating: 7, count: 32))
        let tampered = try Self.image(size: 8_000, key: key, tamper: true)
        let unsigned = try Self.image(size: 8_000)
        let signed = try Self.image(size: 8_000, version: FirmwareVersion(1, 6, 0), key: key)
        defer { [tampered, unsigned, signed].forEach(Self.remove) }
        let (failures, report) = try await EspRig.run { rig in
            try await rig.pair()
            rig.board.type("ota-key \(key.publicKeyHex)")
            var failures: [OTAError] = []
            for image in [tampered, unsigned] {
                do { _ = try await Self.upload(image, rig: rig) } catch { failures.append(error as! OTAError) }
            }
            return (failures, try await Self.upload(signed, rig: rig))
        }
        #expect(failures == [.failed(.finishFailed(.badSignature)), .failed(.finishFailed(.badSignature))])
        #expect(report.outcome == .committed(FirmwareVersion(1, 6, 0)))
    }

    @Test("pause: no frames leave while paused (the frames in flight are still acknowledged), and resume commits")
    func pauseAndResume() async throws {
        let image = try Self.image(size: 30_000)
        defer { Self.remove(image) }
        let (report, batchesWhilePaused, pausedFor) = try await EspRig.run { rig in
            try await rig.pair()
            let pause = OTAPauseSwitch()
            let pausedAt = Mutex<RigInstant?>(nil)
            var transfer = OTATransfer(image: image, options: .init(window: 4, batch: 10), clock: rig.sim.clock)
            transfer.pause = pause
            async let report = transfer.run(
                connect: { body in try await rig.withAuthenticatedClient { client in try await body(client.session) } },
                progress: { p in
                    guard p.acknowledged >= 40, pausedAt.withLock({ $0 }) == nil else { return }
                    pause.pause()
                    let now = rig.sim.clock.now
                    pausedAt.withLock { $0 = now }
                })
            while pausedAt.withLock({ $0 }) == nil { try await rig.sim.clock.sleep(for: .milliseconds(50)) }
            try await rig.sim.clock.sleep(for: .seconds(5))
            // Batches acknowledged in the last 4.5 s of the pause: none (the in-flight ones landed in the first 0.5 s).
            let quietFrom = pausedAt.withLock { $0 }!.advanced(by: .milliseconds(500))
            let batches = rig.board.console.filter { $0.at > quietFrom && $0.line.description.contains("/OTA: batch") }
            pause.resume()
            let done = try await report
            return (done, batches.count, quietFrom.duration(to: rig.sim.clock.now))
        }
        #expect(report.outcome == .committed(FirmwareVersion(1, 5, 0)))
        #expect(batchesWhilePaused == 0)
        #expect(pausedFor >= .seconds(4))
        #expect(report.statistics.resumes == 0)
    }

    @Test("a failed self-test rolls back: the console says so, bank A boots 1.4.2, STATUS reports the rollback")
    func selfTestRollback() async throws {
        let image = try Self.image(size: 5_000)
        defer { Self.remove(image) }
        let (report, lines, boots, status) = try await EspRig.run { rig in
            try await rig.pair()
            rig.board.type("ota-fault selftest")
            let report = try await Self.upload(image, rig: rig)
            return (report, rig.consoleText, Self.bootLines(rig), rig.firmware.ota.status)
        }
        #expect(report.outcome == .rolledBack(running: "1.4.2"))
        #expect(lines.contains("OTA rollback bank=A reason=selftest"))
        #expect(!lines.contains { $0.hasPrefix("OTA committed") })
        #expect(boots == ["1.4.2 A POWERON", "1.5.0 B SW", "1.4.2 A SW"])
        #expect(status.state == .rolledBack)
    }
}
