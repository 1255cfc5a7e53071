import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Testing

@testable import VirtualFarm

/// Power lost while the board activates an update: the bootloader always keeps a bootable bank. Driven with raw
/// protocol writes (a second, independent client of the contract), so the power can be cut at exact moments.
@Suite("esp-point OTA: power loss during activation")
struct EspPointOTAPowerTests {
    typealias OTA = EspPoint.OTA

    /// START, every frame stop-and-wait, FINISH ok; returns with the image verified and not activated.
    static func uploadAndFinish(_ image: [UInt8], client: EspPointClient) async throws {
        let session = client.session
        let inbox = try await session.ensureSubscribed(EspPoint.otaControl)
        func next() async throws -> OTA.Notification {
            let event = try await inbox.next(within: .seconds(30), clock: session.clock, waitingFor: "OTA Control")
            return try OTA.Notification(decoding: event.value)
        }
        let start = OTA.Start(
            size: UInt32(image.count), crc32: CRC32.checksum(image), version: FirmwareVersion(1, 5, 0), batch: 10,
            window: 1)
        try await session.write(OTA.Request.start(start).encoded, to: EspPoint.otaControl)
        guard case .startResult(.ok, 0, let maxPayload) = try await next() else { throw CheckError("START refused") }
        let frames = OTA.frameCount(size: start.size, maxPayload: Int(maxPayload))
        var seq: UInt32 = 0
        while seq < frames {
            let end = min(frames, seq + 10)
            for k in seq..<end {
                let from = Int(k) * Int(maxPayload)
                let payload = image[from..<min(image.count, from + Int(maxPayload))]
                try await session.writeWithoutResponse(OTA.Frame.encode(seq: k, payload: payload), to: EspPoint.otaData)
            }
            guard case .ack(end) = try await next() else { throw CheckError("no ACK of \(end)") }
            seq = end
        }
        try await session.write(OTA.Request.finish.encoded, to: EspPoint.otaControl)
        guard case .finishResult(.ok) = try await next() else { throw CheckError("FINISH failed") }
    }

    struct CheckError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let image: [UInt8] = (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test("power lost while otadata is written: the old bank boots, the verified image waits for another ACTIVATE")
    func powerLossWritingOtadata() async throws {
        let result = try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { client in
                try await Self.uploadAndFinish(Self.image, client: client)
                try await client.session.write(OTA.Request.activate.encoded, to: EspPoint.otaControl)
                rig.board.powerOff()  // one connection event after the board took ACTIVATE: otadata is not written yet
            }
            try await rig.sim.clock.sleep(for: .seconds(1))
            rig.board.powerOn()
            try await rig.sim.clock.sleep(for: .seconds(1))
            let afterLoss = (rig.firmware.version, rig.firmware.ota.status.state)
            // ACTIVATE again: now it goes through.
            try await rig.withAuthenticatedClient { client in
                try await client.session.write(OTA.Request.activate.encoded, to: EspPoint.otaControl)
            }
            try await rig.sim.clock.sleep(for: .seconds(2))
            return (afterLoss, rig.firmware.version, EspPointOTATests.bootLines(rig), rig.consoleText)
        }
        #expect(result.0.0 == FirmwareVersion(1, 4, 2))
        #expect(result.0.1 == .verified)
        #expect(result.1 == FirmwareVersion(1, 5, 0))
        #expect(result.2 == ["1.4.2 A POWERON", "1.4.2 A POWERON", "1.5.0 B SW"])
        #expect(result.3.contains("OTA committed bank=B fw=1.5.0"))
    }

    @Test("power lost while the new image boots unconfirmed: the next boot rolls back to bank A, never to nothing")
    func powerLossDuringSelfTest() async throws {
        let result = try await EspRig.run { rig in
            try await rig.pair()
            try await rig.withAuthenticatedClient { client in
                try await Self.uploadAndFinish(Self.image, client: client)
                try await client.session.write(OTA.Request.activate.encoded, to: EspPoint.otaControl)
            }
            // otadata (45.4 ms) and the reboot delay (300 ms) have passed; READY comes 350 ms after BOOT.
            try await rig.sim.clock.sleep(for: .milliseconds(420))
            let bootedB = EspPointOTATests.bootLines(rig).last
            rig.board.powerOff()
            try await rig.sim.clock.sleep(for: .seconds(1))
            rig.board.powerOn()
            try await rig.sim.clock.sleep(for: .seconds(1))
            let revision = try await rig.withClient { try await $0.identity().firmware }
            return (bootedB, revision, EspPointOTATests.bootLines(rig), rig.consoleText, rig.firmware.ota.status.state)
        }
        #expect(result.0 == "1.5.0 B SW")
        #expect(result.1 == "1.4.2")
        #expect(result.2 == ["1.4.2 A POWERON", "1.5.0 B SW", "1.4.2 A POWERON"])
        #expect(result.3.contains("OTA rollback bank=A reason=unconfirmed"))
        #expect(result.4 == .rolledBack)
    }

    @Test(
        "flash timing does not limit a windowed transfer: window 8 reaches 85 % of the link's unacknowledged capacity")
    func flashIsNotTheLimit() async throws {
        let image = try EspPointOTATests.image(size: 200_000)
        defer { EspPointOTATests.remove(image) }
        let report = try await EspRig.run { rig in
            try await rig.pair()
            return try await EspPointOTATests.upload(image, rig: rig, window: 8)
        }
        let capacity = LinkModel(LinkParameters()).unacknowledgedThroughput
        let efficiency = try #require(report.throughput) / capacity
        #expect(efficiency > 0.85 && efficiency < 0.967, "efficiency \(efficiency)")
    }
}
