import BLECore

extension EspPoint {
    /// Log Control requests, written with response (docs/board-contract.md, esp-point "Log Control and Log Data").
    public enum LogRequest: Hashable, Sendable {
        /// `01`
        case status
        /// `02 from_seq u32 max_count u16`: stream records from `from` on Log Data.
        case read(from: UInt32, maxCount: UInt16)
        /// `03 up_to_seq u32`: records up to and including `upTo` may be freed.
        case acknowledge(upTo: UInt32)

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: 7)
            switch self {
            case .status: w.write(UInt8(0x01))
            case let .read(from, maxCount):
                w.write(UInt8(0x02))
                w.write(from)
                w.write(maxCount)
            case let .acknowledge(upTo):
                w.write(UInt8(0x03))
                w.write(upTo)
            }
            return w.bytes
        }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "Log Control request")
            switch try r.readUInt8("request") {
            case 0x01: self = .status
            case 0x02: self = .read(from: try r.readUInt32("from_seq"), maxCount: try r.readUInt16("max_count"))
            case 0x03: self = .acknowledge(upTo: try r.readUInt32("up_to_seq"))
            case let other:
                throw .invalidValue(context: "Log Control request", field: "request", reason: "unknown request 0x\(String(other, radix: 16))", at: 0)
            }
            try r.expectEnd()
        }
    }

    /// Log Control results, indicated on Log Control.
    public enum LogResult: Hashable, Sendable {
        /// `81 oldest_seq newest_seq count capacity dropped`, all u32.
        case status(LogStatus)
        /// `82 status u8 last_sent_seq u32`: a READ finished.
        case readDone(status: UInt8, lastSent: UInt32)
        /// `83 status u8`
        case acknowledged(status: UInt8)

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: 21)
            switch self {
            case let .status(s):
                w.write(UInt8(0x81))
                for v in [s.oldest, s.newest, s.count, s.capacity, s.dropped] { w.write(v) }
            case let .readDone(status, lastSent):
                w.write(UInt8(0x82))
                w.write(status)
                w.write(lastSent)
            case let .acknowledged(status):
                w.write(UInt8(0x83))
                w.write(status)
            }
            return w.bytes
        }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "Log Control indication")
            switch try r.readUInt8("result") {
            case 0x81:
                self = .status(LogStatus(
                    oldest: try r.readUInt32("oldest_seq"), newest: try r.readUInt32("newest_seq"),
                    count: try r.readUInt32("count"), capacity: try r.readUInt32("capacity"),
                    dropped: try r.readUInt32("dropped")))
            case 0x82: self = .readDone(status: try r.readUInt8("status"), lastSent: try r.readUInt32("last_sent_seq"))
            case 0x83: self = .acknowledged(status: try r.readUInt8("status"))
            case let other:
                throw .invalidValue(context: "Log Control indication", field: "result", reason: "unknown result 0x\(String(other, radix: 16))", at: 0)
            }
            try r.expectEnd()
        }
    }

    /// What the flash log holds.
    public struct LogStatus: Hashable, Sendable {
        public var oldest: UInt32
        public var newest: UInt32
        public var count: UInt32
        public var capacity: UInt32
        /// Records overwritten before they were acknowledged, since the log was created.
        public var dropped: UInt32

        public init(oldest: UInt32, newest: UInt32, count: UInt32, capacity: UInt32, dropped: UInt32) {
            self.oldest = oldest
            self.newest = newest
            self.count = count
            self.capacity = capacity
            self.dropped = dropped
        }
    }

    /// A Log Data notification: `n u8` then n records; n = 0 ends a READ.
    public struct LogData: Hashable, Sendable {
        public var readings: [Reading]

        public init(readings: [Reading]) { self.readings = readings }

        /// How many records fit one notification at `mtu` (17 at MTU 247).
        public static func capacity(mtu: Int) -> Int { max(0, min(255, (mtu - 3 - 1) / Reading.size)) }

        public var encoded: [UInt8] {
            var w = ByteWriter(capacity: 1 + readings.count * Reading.size)
            w.write(UInt8(readings.count))
            for reading in readings { reading.encode(into: &w) }
            return w.bytes
        }

        public init(decoding bytes: [UInt8]) throws(DecodingError) {
            var r = ByteReader(bytes, context: "Log Data notification")
            let n = try r.readUInt8("n")
            var readings: [Reading] = []
            readings.reserveCapacity(Int(n))
            for _ in 0..<n { readings.append(try Reading(from: &r)) }
            try r.expectEnd()
            self.readings = readings
        }
    }
}
