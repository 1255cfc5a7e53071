import BLECore
import Foundation
import Testing

@testable import DeviceProfiles

/// The OTA protocol's bytes (docs/board-contract.md, esp-point "OTA") and its CRC-32, checked against the catalogue's
/// check value and against zlib (through Python's `zlib.crc32`), which nobody here wrote.
@Suite("esp-point OTA codecs")
struct OTACodecTests {
    typealias OTA = EspPoint.OTA

    @Test("CRC-32/ISO-HDLC of \"123456789\" is the catalogue's check value 0xCBF43926, whole and fed in pieces")
    func crcCheckValue() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32.checksum(bytes) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        var crc = CRC32()
        for byte in bytes { crc.update([byte]) }
        #expect(crc.value == 0xCBF4_3926)
        var resumed = CRC32(resumingFrom: CRC32.checksum(bytes.prefix(4)))
        resumed.update(bytes.dropFirst(4))
        #expect(resumed.value == 0xCBF4_3926)
    }

    @Test("CRC-32 agrees with zlib.crc32 on random data of many lengths")
    func crcAgreesWithZlib() throws {
        var random = SeededRandom(seed: 9, stream: "crc")
        let lengths = [1, 3, 255, 256, 4096, 65_537]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blerig-crc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var ours: [UInt32] = []
        var paths: [String] = []
        for (i, length) in lengths.enumerated() {
            let data = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let path = directory.appendingPathComponent("\(i).bin").path
            try Data(data).write(to: URL(fileURLWithPath: path))
            ours.append(CRC32.checksum(data))
            paths.append(path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", "-c", "import sys, zlib\nfor p in sys.argv[1:]: print(zlib.crc32(open(p, 'rb').read()))"]
            + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "python3 must be installed for this test")
        let zlib = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { UInt32($0) }
        #expect(zlib == ours)
    }

    @Test("control requests have the contract's bytes and round-trip")
    func requests() throws {
        let start = OTA.Start(
            size: 0x0010_0000, crc32: 0xDEAD_BEEF, version: FirmwareVersion(1, 5, 0x0102), batch: 10, window: 4)
        let cases: [(OTA.Request, [UInt8])] = [
            (.start(start), [0x01, 0, 0, 0x10, 0, 0xEF, 0xBE, 0xAD, 0xDE, 1, 5, 0x02, 0x01, 10, 4]),
            (.finish, [0x02]), (.activate, [0x03]), (.status, [0x04]),
        ]
        for (request, bytes) in cases {
            #expect(request.encoded == bytes)
            #expect(try OTA.Request(decoding: bytes) == request)
        }
    }

    @Test("notifications have the contract's bytes and round-trip")
    func notifications() throws {
        let status = OTA.Status(state: .receiving, nextSeq: 420, crc32: 0x0102_0304, size: 99_999)
        let cases: [(OTA.Notification, [UInt8])] = [
            (.startResult(status: .ok, nextSeq: 420, maxPayload: 236), [0x81, 0, 0xA4, 0x01, 0, 0, 0xEC, 0]),
            (.ack(nextSeq: 420), [0x82, 0xA4, 0x01, 0, 0]),
            (.nak(expectedSeq: 7, reason: .crc), [0x83, 7, 0, 0, 0, 1]),
            (.finishResult(.flashVerifyFailed), [0x84, 4]),
            (.status(status), [0x85, 1, 0xA4, 0x01, 0, 0, 0x04, 0x03, 0x02, 0x01, 0x9F, 0x86, 0x01, 0]),
        ]
        for (notification, bytes) in cases {
            #expect(notification.encoded == bytes)
            #expect(try OTA.Notification(decoding: bytes) == notification)
        }
    }

    @Test("a frame is seq | payload | CRC over both; at MTU 247 a full one is exactly 244 bytes")
    func frames() throws {
        #expect(OTA.maxPayload(mtu: 247) == 236)
        #expect(OTA.frameCount(size: 10 * 1_048_576, maxPayload: 236) == 44_432)
        let payload = (0..<236).map { UInt8($0 & 0xFF) }
        let frame = OTA.Frame(seq: 0x0A0B_0C0D, payload: payload)
        let bytes = frame.encoded
        #expect(bytes.count == 244)
        #expect(Array(bytes.prefix(4)) == [0x0D, 0x0C, 0x0B, 0x0A])
        let crc = CRC32.checksum(bytes.prefix(240))
        #expect(
            Array(bytes.suffix(4)) == [
                UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24),
            ])
        #expect(try OTA.Frame(decoding: bytes) == frame)
        var flipped = bytes
        flipped[100] ^= 0x01
        #expect(throws: OTA.FrameError.self) { try OTA.Frame(decoding: flipped) }
        #expect(throws: OTA.FrameError.self) { try OTA.Frame(decoding: [1, 2, 3]) }
        // An empty payload is a valid frame (seq and CRC only).
        #expect(try OTA.Frame(decoding: OTA.Frame(seq: 3, payload: []).encoded).payload == [])
    }

    @Test("malformed control bytes decode to errors that name the structure and field")
    func malformed() {
        func message(_ body: () throws -> Void) -> String {
            do { try body() } catch { return "\(error)" }
            return "no error"
        }
        #expect(
            message { _ = try OTA.Request(decoding: []) }
                == "OTA Control request: truncated at byte 0: request needs 1 byte(s), 0 left")
        #expect(message { _ = try OTA.Request(decoding: [0x01, 1, 2]) }.contains("size"))
        #expect(message { _ = try OTA.Request(decoding: [0x07]) }.contains("unknown request 0x7"))
        #expect(message { _ = try OTA.Request(decoding: [0x02, 0]) }.contains("trailing"))
        #expect(message { _ = try OTA.Notification(decoding: [0x83, 0, 0, 0, 0, 9]) }.contains("NAK reason 9"))
        #expect(message { _ = try OTA.Notification(decoding: [0x90]) }.contains("unknown result 0x90"))
    }

    @Test("random bytes never trap the decoders: each decodes, or fails with an error")
    func fuzz() {
        var random = SeededRandom(seed: 77, stream: "ota-fuzz")
        var decoded = 0
        for _ in 0..<20_000 {
            let length = Int(random.next() % 20)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // Bias the first byte towards valid opcodes, so the decoders get past it often.
            if !bytes.isEmpty, random.next() % 2 == 0 {
                bytes[0] = [0x01, 0x02, 0x03, 0x04, 0x81, 0x82, 0x83, 0x84, 0x85][Int(random.next() % 9)]
            }
            if let request = try? OTA.Request(decoding: bytes) {
                decoded += 1
                #expect(request.encoded == bytes)
            }
            if let notification = try? OTA.Notification(decoding: bytes) {
                decoded += 1
                #expect(notification.encoded == bytes)
            }
            if let frame = try? OTA.Frame(decoding: bytes) { #expect(frame.encoded == bytes) }
        }
        #expect(decoded > 100)
    }
}
