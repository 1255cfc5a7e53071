import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Testing

@testable import VirtualFarm

/// Faults the OTA fault campaign found or relies on, each pinned down on its own: the flash model tears what a power
/// loss interrupts, and the bootloader checks what it starts.
@Suite("esp-point OTA: flash faults and the bootloader's checks")
struct EspPointOTAFlashFaultTests {
    typealias OTA = EspPoint.OTA

    static let image = EspPointOTAPowerTests.image

    /// START and every frame stop-and-wait, without FINISH; returns the frame count.
    static func uploadFrames(_ image: [UInt8], session: ProfileSession, inbox: Inbox) async throws -> UInt32 {
        let start = OTA.Start(
            size: UInt32(image.count), crc32: CRC32.checksum(image), version: FirmwareVersion(1, 5, 0), batch: 10,
            window: 1)
        try await session.write(OTA.Request.start(start).encoded, to: EspPoint.otaControl)
        guard case .startResult(.ok, 0, let maxPayload) = try await next(inbox, session) else {
            throw EspPointOTAPowerTests.CheckError("START refused")
        }
        let frames = OTA.frameCount(size: start.size, maxPayload: Int(maxPayload))
        var seq: UInt32 = 0
        while seq < frames {
            let end = min(frames, seq + 10)
            for k in seq..<end {
                let from = Int(k) * Int(maxPayload)
                let payload = image[from..<min(image.count, from + Int(maxPayload))]
                try await session.writeWithoutResponse(OTA.Frame.encode(seq: k, payload: payload), to: EspPoint.otaData)
            }
            guard case .ack(end) = try await next(inbox, session) else {
                throw EspPointOTAPowerTests.CheckError("no ACK of \(end)")
            }
            seq = end
        }
        return frames
    }

    static func next(_ inbox: Inbox, _ session: ProfileSession) async throws -> OTA.Notification {
        let event = try await inbox.next(within: .seconds(30), clock: session.clock, waitingFor: "OTA Control")
        return try OTA.Notification(decoding: event.value)
    }

    /// The model trapped on a backwards range here: next_seq × max_payload passes the image's end.
    @Test("the link lost after the last ACK and before FINISH: the resuming START erases nothing and FINISH verifies")
    func resumeAfterTheLastAck() async throws {
        let image = Self.image  // 5,000 bytes: 22 frames of 236, so next_seq × max_payload = 5,192 > 5,000
        let (resumed, finish) = try await EspRig.run { rig in
            try await rig.pair()
            let frames = try await rig.withAuthenticatedClient { client in
                let inbox = try await client.session.ensureSubscribed(EspPoint.otaControl)
                return try await Self.uploadFrames(image, session: client.session, inbox: inbox)
            }
            return try await rig.withAuthenticatedClient { client in
                let session = client.session
                let inbox = try await session.ensureSubscribed(EspPoint.otaControl)
                let start = OTA.Start(
                    size: UInt32(image.count), crc32: CRC32.checksum(image), version: FirmwareVersion(1, 5, 0),
                    batch: 10, window: 1)
                try await session.write(OTA.Request.start(start).encoded, to: EspPoint.otaControl)
                let resumed = try await Self.next(inbox, session)
                try await session.write(OTA.Request.finish.encoded, to: EspPoint.otaControl)
                let ok = resumed == .startResult(status: .ok, nextSeq: frames, maxPayload: 236)
                return (ok, try await Self.next(inbox, session))
            }
        }
        #expect(resumed)
        #expect(finish == .finishResult(.ok))
    }

    @Test("a bit flipped in the verified bank before the reboot: the bootloader refuses the image and bank A boots")
    func bootloaderRefusesACorruptedImage() async throws {
        let (version, lines, bricked) = try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { client in
                try await EspPointOTAPowerTests.uploadAndFinish(Self.image, client: client)
                var random = SeededRandom(seed: 5)
                #expect(rig.board.flipBitInUpdateBank(&random) != nil)
                try await client.session.write(OTA.Request.activate.encoded, to: EspPoint.otaControl)
            }
            try await rig.sim.clock.sleep(for: .seconds(2))
            return (rig.firmware.version, rig.consoleText, rig.board.isBricked)
        }
        #expect(version == FirmwareVersion(1, 4, 2))
        #expect(lines.contains("OTA rollback bank=A reason=invalid-image"))
        #expect(!bricked)
    }

    @Test("both banks corrupted: the bootloader starts nothing, prints why, and the board never advertises")
    func noBootableImage() async throws {
        let (bricked, advertising, lines) = try await EspRig.run { rig in
            rig.board.powerOff()
            var byte = rig.firmware.ota.flash.banks.read(.bank(.a), 10..<11)
            byte[0] ^= 1
            rig.firmware.ota.flash.banks.store(byte, in: .bank(.a), at: 10)
            rig.board.powerOn()
            try await rig.sim.clock.sleep(for: .seconds(1))
            return (rig.board.isBricked, rig.board.advertising, rig.consoleText)
        }
        #expect(bricked)
        #expect(advertising == nil)
        #expect(lines.last?.hasPrefix("E boot: no bootable app image") == true)
    }
}
