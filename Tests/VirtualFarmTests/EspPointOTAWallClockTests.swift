import BLECore
import DeviceProfiles
import Synchronization
import Testing

@testable import VirtualFarm

/// The esp-point's OTA flash pipeline on the wall clock, as a board served over a real controller runs it. There time
/// moves while a handler runs, so a timer for an instant the flash model computed must be set for that instant: set
/// as a delay from a `now` read at the top of the handler, it fired late by the handler's own run time, a frame's
/// page program could then complete after the next frame's, and the board dropped the completion that came out of
/// order and never acknowledged again (the update stalled with "no answer to STATUS while streaming").
@Suite("esp-point OTA on the wall clock")
struct EspPointOTAWallClockTests {
    typealias OTA = EspPoint.OTA

    static let address = DeviceAddress(0x24_0A_C4_12_1A_2B)

    /// After each frame the test sets a probe timer of its own for the instant the flash model says that frame's
    /// page program ends (`flashBusyUntil`). The board's timer for the same instant was set first, so it runs
    /// first: at every probe the frame is in flash. A board timer that ran late (by even a nanosecond) runs after
    /// the probe, which then finds the frame not yet programmed.
    @Test("each frame's page program completes at the instant the flash model ends it, in frame order")
    func pageProgramsCompleteAtTheirInstant() async throws {
        let (frames, seen, programmed) = try await Simulation.runOnWallClock(seed: 1) { sim in
            let hosted = HostedBoard(
                profile: .espPoint, id: "esp-1", address: Self.address, sim: sim,
                radio: RecordingBoardRadio(address: Self.address))
            hosted.powerOn()
            try await sim.clock.sleep(for: .milliseconds(600))
            let bearer = ScriptedBearer(handle: 0x0042)
            hosted.accept(bearer)
            bearer.deliver(ATT.ExchangeMTURequest(clientRxMTU: 247).encoded)
            let firmware = try #require(hosted.model.firmware as? EspPointFirmware)
            let connection = GATTServer.ConnectionID(rawValue: bearer.handle)
            // Authentication is the Auth characteristic's business, tested elsewhere: granted here.
            firmware.auth.sessions[connection]?.authenticated = true

            let maxPayload = OTA.maxPayload(mtu: 247)
            let image = (0..<(maxPayload * 12)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let start = OTA.Start(
                size: UInt32(image.count), crc32: CRC32.checksum(image), version: FirmwareVersion(1, 5, 0),
                batch: 4, window: 3)
            #expect(firmware.ota.control(OTA.Request.start(start).encoded, on: connection) == nil)
            // The erase of the image's one sector (45 ms), then START's answer.
            try await sim.clock.sleep(for: .milliseconds(300))
            let record = try #require(firmware.ota.flash.record, "START was not taken: \(hosted.model.console)")
            #expect(record.maxPayload == maxPayload)

            // The frames in one burst, as one read from the controller delivers them.
            let seen = Mutex<[(frame: UInt32, programmed: UInt32)]>([])
            for seq in 0..<UInt32(record.frames) {
                let from = Int(seq) * maxPayload
                let frame = OTA.Frame.encode(seq: seq, payload: image[from..<min(image.count, from + maxPayload)])
                #expect(firmware.ota.data(frame, on: connection) == nil)
                sim.schedule(at: firmware.ota.run.flashBusyUntil) {
                    let programmed = firmware.ota.run.flashedSeq
                    seen.withLock { $0.append((seq, programmed)) }
                }
            }
            try await sim.clock.sleep(for: .milliseconds(300))
            return (record.frames, seen.withLock { $0 }, firmware.ota.run.flashedSeq)
        }
        #expect(programmed == frames, "\(programmed) of \(frames) frames programmed")
        #expect(seen.map(\.frame) == Array(0..<frames))
        for probe in seen {
            #expect(
                probe.programmed == probe.frame + 1,
                "at the end of frame \(probe.frame)'s page program, \(probe.programmed) frames were in flash")
        }
    }
}
