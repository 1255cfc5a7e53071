import BLECore

extension EspPoint {
    /// The OTA protocol (docs/board-contract.md, esp-point "OTA"): control requests written with response to OTA
    /// Control, their results notified on OTA Control, and data frames written without response to OTA Data. Chunked, a
    /// CRC per frame, batch acknowledgement, windowed, resumable; deliberately no abort.
    public enum OTA {
        /// `seq u32` before a frame's payload and `crc32 u32` after it.
        public static let frameOverhead = 8
        /// The batch when START asks for 0: ACK every 10 frames, as the case study did.
        public static let defaultBatch: UInt8 = 10

        /// Image bytes per frame at `mtu`: ATT_MTU − 3 − 8 (236 at MTU 247, so a frame is exactly 244 bytes).
        public static func maxPayload(mtu: UInt16) -> Int { max(0, Int(mtu) - 3 - frameOverhead) }

        /// Frames an image of `size` bytes takes at `maxPayload` bytes per frame.
        public static func frameCount(size: UInt32, maxPayload: Int) -> UInt32 {
            guard maxPayload > 0 else { return 0 }
            return UInt32((UInt64(size) + UInt64(maxPayload) - 1) / UInt64(maxPayload))
        }

        /// START's parameters: `size u32 crc32 u32 major u8 minor u8 patch u16 batch u8 window u8`.
        public struct Start: Hashable, Sendable {
            public var size: UInt32
            public var crc32: UInt32
            public var version: FirmwareVersion
            /// Frames per ACK; 0 means ``defaultBatch``.
            public var batch: UInt8
            /// Unacknowledged batches the central keeps in flight (the board learns it; it limits nothing there).
            public var window: UInt8

            public init(size: UInt32, crc32: UInt32, version: FirmwareVersion, batch: UInt8, window: UInt8) {
                self.size = size
                self.crc32 = crc32
                self.version = version
                self.batch = batch
                self.window = window
            }

            /// The batch in effect.
            public var effectiveBatch: UInt8 { batch == 0 ? OTA.defaultBatch : batch }
        }

        /// A write to OTA Control.
        public enum Request: Hashable, Sendable {
            /// `01 size crc32 major minor patch batch window`; answered by
            /// ``Notification/startResult(status:nextSeq:maxPayload:)``.
            case start(Start)
            /// `02`; answered by ``Notification/finishResult(_:)``.
            case finish
            /// `03`; not answered: the board reboots into the new bank.
            case activate
            /// `04`; answered by ``Notification/status(_:)``.
            case status

            public var encoded: [UInt8] {
                switch self {
                case let .start(s):
                    var w = ByteWriter(capacity: 15)
                    w.write(UInt8(0x01))
                    w.write(s.size)
                    w.write(s.crc32)
                    w.write(s.version.major)
                    w.write(s.version.minor)
                    w.write(s.version.patch)
                    w.write(s.batch)
                    w.write(s.window)
                    return w.bytes
                case .finish: return [0x02]
                case .activate: return [0x03]
                case .status: return [0x04]
                }
            }

            public init(decoding bytes: [UInt8]) throws(DecodingError) {
                var r = ByteReader(bytes, context: "OTA Control request")
                switch try r.readUInt8("request") {
                case 0x01:
                    let size = try r.readUInt32("size"), crc = try r.readUInt32("crc32")
                    let major = try r.readUInt8("major"), minor = try r.readUInt8("minor")
                    let patch = try r.readUInt16("patch")
                    let batch = try r.readUInt8("batch"), window = try r.readUInt8("window")
                    self = .start(
                        Start(
                            size: size, crc32: crc, version: FirmwareVersion(major, minor, patch), batch: batch,
                            window: window))
                case 0x02: self = .finish
                case 0x03: self = .activate
                case 0x04: self = .status
                case let other:
                    throw .invalidValue(
                        context: "OTA Control request", field: "request",
                        reason: "unknown request 0x\(String(other, radix: 16))", at: 0)
                }
                try r.expectEnd()
            }
        }

        /// START's status: 0 ok, 1 image too large, 2 busy, 3 battery below 20 %, 4 not authenticated.
        public struct StartStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            public static let ok = Self(rawValue: 0)
            public static let tooLarge = Self(rawValue: 1)
            public static let busy = Self(rawValue: 2)
            public static let batteryLow = Self(rawValue: 3)
            public static let notAuthenticated = Self(rawValue: 4)

            public var description: String {
                switch rawValue {
                case 0: "ok"
                case 1: "image too large"
                case 2: "busy"
                case 3: "battery below 20 %"
                case 4: "not authenticated"
                default: "status \(rawValue)"
                }
            }
        }

        /// FINISH's status: 0 ok, 1 CRC mismatch, 2 size mismatch, 3 bad signature, 4 flash verify failed.
        public struct FinishStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            public static let ok = Self(rawValue: 0)
            public static let crcMismatch = Self(rawValue: 1)
            public static let sizeMismatch = Self(rawValue: 2)
            public static let badSignature = Self(rawValue: 3)
            public static let flashVerifyFailed = Self(rawValue: 4)

            public var description: String {
                switch rawValue {
                case 0: "ok"
                case 1: "CRC mismatch"
                case 2: "size mismatch"
                case 3: "bad signature"
                case 4: "flash verify failed"
                default: "status \(rawValue)"
                }
            }
        }

        /// Why a board NAKed: 1 crc, 2 out of order, 3 flash write error.
        public struct NakReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            public static let crc = Self(rawValue: 1)
            public static let outOfOrder = Self(rawValue: 2)
            public static let flashWrite = Self(rawValue: 3)

            public var description: String {
                switch rawValue {
                case 1: "crc"
                case 2: "out of order"
                case 3: "flash write error"
                default: "reason \(rawValue)"
                }
            }
        }

        /// The board's OTA state in a STATUS answer. The contract leaves the values open; the rig's test firmware
        /// uses these (a proposal for the contract note).
        public struct State: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: UInt8
            public init(rawValue: UInt8) { self.rawValue = rawValue }
            /// No update in progress, none done since the last boot.
            public static let idle = Self(rawValue: 0)
            /// START accepted; frames up to next_seq are in flash (also after a reboot: resumable).
            public static let receiving = Self(rawValue: 1)
            /// FINISH verified the image; ACTIVATE will boot it.
            public static let verified = Self(rawValue: 2)
            /// The running image came from an update and passed its self-test.
            public static let committed = Self(rawValue: 3)
            /// The last activated image failed (self-test, or it was never confirmed) and the old bank runs again.
            public static let rolledBack = Self(rawValue: 4)

            public var description: String {
                switch rawValue {
                case 0: "idle"
                case 1: "receiving"
                case 2: "verified"
                case 3: "committed"
                case 4: "rolled back"
                default: "state \(rawValue)"
                }
            }
        }

        /// A STATUS answer: `85 state u8 next_seq u32 crc32 u32 size u32`.
        public struct Status: Hashable, Sendable {
            public var state: State
            public var nextSeq: UInt32
            public var crc32: UInt32
            public var size: UInt32

            public init(state: State, nextSeq: UInt32, crc32: UInt32, size: UInt32) {
                self.state = state
                self.nextSeq = nextSeq
                self.crc32 = crc32
                self.size = size
            }
        }

        /// A notification on OTA Control.
        public enum Notification: Hashable, Sendable {
            /// `81 status u8 next_seq u32 max_payload u16`
            case startResult(status: StartStatus, nextSeq: UInt32, maxPayload: UInt16)
            /// `82 next_seq u32`
            case ack(nextSeq: UInt32)
            /// `83 expected_seq u32 reason u8`
            case nak(expectedSeq: UInt32, reason: NakReason)
            /// `84 status u8`
            case finishResult(FinishStatus)
            /// `85 state u8 next_seq u32 crc32 u32 size u32`
            case status(Status)

            public var encoded: [UInt8] {
                var w = ByteWriter(capacity: 14)
                switch self {
                case let .startResult(status, nextSeq, maxPayload):
                    w.write(UInt8(0x81))
                    w.write(status.rawValue)
                    w.write(nextSeq)
                    w.write(maxPayload)
                case let .ack(nextSeq):
                    w.write(UInt8(0x82))
                    w.write(nextSeq)
                case let .nak(expected, reason):
                    w.write(UInt8(0x83))
                    w.write(expected)
                    w.write(reason.rawValue)
                case let .finishResult(status):
                    w.write(UInt8(0x84))
                    w.write(status.rawValue)
                case let .status(s):
                    w.write(UInt8(0x85))
                    w.write(s.state.rawValue)
                    w.write(s.nextSeq)
                    w.write(s.crc32)
                    w.write(s.size)
                }
                return w.bytes
            }

            public init(decoding bytes: [UInt8]) throws(DecodingError) {
                let context = "OTA Control notification"
                var r = ByteReader(bytes, context: context)
                switch try r.readUInt8("result") {
                case 0x81:
                    self = .startResult(
                        status: StartStatus(rawValue: try r.readUInt8("status")), nextSeq: try r.readUInt32("next_seq"),
                        maxPayload: try r.readUInt16("max_payload"))
                case 0x82: self = .ack(nextSeq: try r.readUInt32("next_seq"))
                case 0x83:
                    let expected = try r.readUInt32("expected_seq")
                    let reason = try r.readUInt8("reason")
                    guard (1...3).contains(reason) else {
                        throw .invalidValue(
                            context: context, field: "reason", reason: "NAK reason \(reason) is not 1, 2 or 3", at: 5)
                    }
                    self = .nak(expectedSeq: expected, reason: NakReason(rawValue: reason))
                case 0x84: self = .finishResult(FinishStatus(rawValue: try r.readUInt8("status")))
                case 0x85:
                    self = .status(
                        Status(
                            state: State(rawValue: try r.readUInt8("state")), nextSeq: try r.readUInt32("next_seq"),
                            crc32: try r.readUInt32("crc32"), size: try r.readUInt32("size")))
                case let other:
                    throw .invalidValue(
                        context: context, field: "result", reason: "unknown result 0x\(String(other, radix: 16))", at: 0
                    )
                }
                try r.expectEnd()
            }
        }

        /// A data frame on OTA Data: `seq u32 | payload | crc32 u32`, the CRC over seq and payload.
        public struct Frame: Hashable, Sendable {
            public var seq: UInt32
            public var payload: [UInt8]

            public init(seq: UInt32, payload: [UInt8]) {
                self.seq = seq
                self.payload = payload
            }

            public var encoded: [UInt8] { Self.encode(seq: seq, payload: payload) }

            /// The frame's bytes for `seq` and `payload` (any contiguous bytes: a slice of a read buffer).
            public static func encode<C: Collection<UInt8>>(seq: UInt32, payload: C) -> [UInt8] {
                var w = ByteWriter(capacity: payload.count + OTA.frameOverhead)
                w.write(seq)
                w.write(contentsOf: payload)
                w.write(CRC32.checksum(w.bytes))
                return w.bytes
            }

            /// Decodes a frame and checks its CRC. A frame shorter than seq + crc is malformed; one whose CRC does
            /// not match is ``FrameError/crcMismatch(expected:received:)`` (its seq cannot be trusted then).
            public init(decoding bytes: [UInt8]) throws(FrameError) {
                guard bytes.count >= OTA.frameOverhead else {
                    throw .malformed(
                        .truncated(
                            context: "OTA Data frame", field: "seq and crc32", needed: OTA.frameOverhead,
                            available: bytes.count, at: 0))
                }
                let body = bytes[..<(bytes.count - 4)]
                var r = ByteReader(bytes[(bytes.count - 4)...], context: "OTA Data frame")
                let received: UInt32
                do { received = try r.readUInt32("crc32") } catch { throw .malformed(error) }
                let computed = CRC32.checksum(body)
                guard computed == received else { throw .crcMismatch(expected: computed, received: received) }
                var h = ByteReader(body, context: "OTA Data frame")
                do { seq = try h.readUInt32("seq") } catch { throw .malformed(error) }
                payload = h.readRemaining()
            }
        }

        /// Why a data frame was refused.
        public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
            case malformed(DecodingError)
            /// The CRC over seq and payload is `expected`; the frame carried `received`.
            case crcMismatch(expected: UInt32, received: UInt32)

            public var description: String {
                switch self {
                case let .malformed(error): "\(error)"
                case let .crcMismatch(expected, received):
                    "OTA Data frame: CRC mismatch: computed 0x\(String(expected, radix: 16)), frame says 0x\(String(received, radix: 16))"
                }
            }
        }
    }
}
