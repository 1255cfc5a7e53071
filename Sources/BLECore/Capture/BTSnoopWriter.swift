extension BTSnoop {
    /// Produces a btsnoop capture (datalink 1002, H4) as bytes for the caller to append to a file, so a capture
    /// can be streamed while a test runs: ``header`` once, then the bytes of one record per packet. Sans-I/O.
    ///
    /// Timestamps are rig instants placed on the calendar by `unixTimeAtOrigin`, the Unix time at
    /// ``RigInstant/origin``: the wall-clock start of the run on hardware, or a fixed value in the virtual farm
    /// so that its captures are reproducible.
    public struct Writer: Hashable, Sendable {
        /// The Unix time (since 1970-01-01 00:00 UTC) at which the rig clock read ``RigInstant/origin``.
        public let unixTimeAtOrigin: Duration
        /// Packets the caller reported lost, written into every later record.
        public private(set) var cumulativeDrops: UInt32 = 0

        public init(unixTimeAtOrigin: Duration) {
            self.unixTimeAtOrigin = unixTimeAtOrigin
        }

        /// The 16-byte file header (datalink 1002); write it first.
        public var header: [UInt8] { BTSnoop.fileHeader(datalink: .hciUART) }

        /// The btsnoop timestamp of an instant: microseconds since 0000-01-01, saturating far outside any real
        /// date.
        public func timestamp(at instant: RigInstant) -> Int64 {
            let (seconds, attoseconds) = (unixTimeAtOrigin + instant.sinceOrigin).components
            let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
            let micros = overflow ? (seconds < 0 ? Int64.min : Int64.max) : scaled
            let (unix, overflowAgain) = micros.addingReportingOverflow(attoseconds / 1_000_000_000_000)
            let (total, overflowEpoch) = unix.addingReportingOverflow(BTSnoop.unixEpochOffset)
            guard !overflowAgain, !overflowEpoch else { return micros < 0 ? Int64.min : Int64.max }
            return total
        }

        /// Counts packets lost before the next record (a full ring buffer, a transport error).
        public mutating func noteDropped(_ count: UInt32 = 1) {
            cumulativeDrops = cumulativeDrops.addingReportingOverflow(count).overflow ? .max : cumulativeDrops + count
        }

        /// One record holding an H4 packet.
        public func record(_ packet: HCI.H4Packet, direction: HCI.Direction, at instant: RigInstant) -> Record {
            Record(
                flags: RecordFlags(direction: direction, type: packet.type), cumulativeDrops: cumulativeDrops,
                timestamp: timestamp(at: instant), data: packet.encoded)
        }

        /// The bytes of one record holding an H4 packet.
        public func recordBytes(_ packet: HCI.H4Packet, direction: HCI.Direction, at instant: RigInstant) -> [UInt8] {
            var bytes: [UInt8] = []
            appendRecord(packet, direction: direction, at: instant, to: &bytes)
            return bytes
        }

        /// Appends the bytes of one record holding an H4 packet to `bytes`, written straight into it: a capture
        /// records every packet on the thread that reads the controller.
        public func appendRecord(
            _ packet: HCI.H4Packet, direction: HCI.Direction, at instant: RigInstant, to bytes: inout [UInt8]
        ) {
            precondition(packet.body.count < Int(UInt32.max), "a btsnoop record holds at most 4 GiB")
            let length = UInt32(1 + packet.body.count)
            func append<T: FixedWidthInteger>(_ value: T) {
                withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
            }
            append(length)  // original length
            append(length)  // included length
            append(RecordFlags(direction: direction, type: packet.type).rawValue)
            append(cumulativeDrops)
            append(timestamp(at: instant))
            bytes.append(packet.type.rawValue)
            bytes.append(contentsOf: packet.body)
        }

        /// An ATT PDU sent (host → controller) or received (controller → host) on a connection: wrapped in an
        /// L2CAP B-frame on the ATT channel, then in ACL data packets of at most `maximumACLDataLength` bytes
        /// (nil: one packet), each with its H4 indicator; one record per ACL packet.
        public func attPDU(
            _ pdu: [UInt8], handle: UInt16, direction: HCI.Direction, at instant: RigInstant,
            maximumACLDataLength: Int? = nil
        ) -> [UInt8] {
            let frame = L2CAP.BasicFrame.att(pdu)
            let limit = maximumACLDataLength ?? (L2CAP.headerLength + pdu.count)
            let packets = HCI.ACLDataPacket.packets(
                carrying: frame, handle: handle, direction: direction, maximumDataLength: limit)
            return packets.flatMap { recordBytes(HCI.H4Packet($0), direction: direction, at: instant) }
        }

        /// An LE Connection Complete event (controller → host): tells Wireshark who is on `event.handle`.
        public func connectionComplete(_ event: HCI.LEConnectionComplete, at instant: RigInstant) -> [UInt8] {
            recordBytes(HCI.H4Packet(event.event), direction: .controllerToHost, at: instant)
        }

        /// A Disconnection Complete event (controller → host).
        public func disconnectionComplete(_ event: HCI.DisconnectionComplete, at instant: RigInstant) -> [UInt8] {
            recordBytes(HCI.H4Packet(event.event), direction: .controllerToHost, at: instant)
        }
    }
}
