extension L2CAP {
    /// Rebuilds B-frames from the fragments of one ACL link, fed as they arrive (one byte at a time or a whole
    /// frame at once); sans-I/O (Core 5.4 Vol 3 Part A §7.2). Keep one reassembler per connection handle.
    ///
    /// A fragment that breaks the rules throws ``ReassemblyError``; the partial frame and that fragment are
    /// dropped, and the next start fragment begins afresh.
    public struct Reassembler: Hashable, Sendable {
        /// The bytes of the frame being rebuilt, header included; empty when idle.
        private var pending: [UInt8] = []
        private var assembling = false

        public init() {}

        /// True while a frame has started and not yet completed.
        public var hasPartialFrame: Bool { assembling }

        /// Bytes of the frame being rebuilt still to come, once its header is in; nil when idle or before then.
        public var remaining: Int? {
            guard assembling, let expected = expectedLength else { return nil }
            return expected - pending.count
        }

        /// The frame's total length (header + payload) once its header is in, else nil.
        private var expectedLength: Int? {
            guard pending.count >= L2CAP.headerLength else { return nil }
            return L2CAP.headerLength + (Int(pending[0]) | Int(pending[1]) << 8)
        }

        /// Takes one fragment; returns the frame it completes, if any.
        public mutating func push(_ fragment: Fragment) throws(ReassemblyError) -> BasicFrame? {
            switch fragment.boundary {
            case .start:
                if assembling {
                    let received = pending.count
                    let expected = expectedLength
                    reset()
                    throw .startWhileIncomplete(received: received, expected: expected)
                }
                assembling = true
                pending = fragment.bytes
            case .continuation:
                guard assembling else { throw .continuationWithoutStart(length: fragment.bytes.count) }
                pending += fragment.bytes
            }
            guard let expected = expectedLength else { return nil }
            if pending.count > expected {
                let received = pending.count
                reset()
                throw .lengthOverrun(expected: expected, received: received)
            }
            guard pending.count == expected else { return nil }
            let channel = ChannelIdentifier(rawValue: UInt16(pending[2]) | UInt16(pending[3]) << 8)
            let frame = BasicFrame(channel: channel, payload: Array(pending[L2CAP.headerLength...]))
            reset()
            return frame
        }

        /// Drops any partial frame (after a disconnection, for instance).
        public mutating func reset() {
            pending = []
            assembling = false
        }
    }

    /// Why a fragment could not be reassembled (Core 5.4 Vol 3 Part A §7.2).
    public enum ReassemblyError: Error, Hashable, Sendable, CustomStringConvertible {
        /// A continuation fragment of `length` bytes arrived with no frame started; it was dropped.
        case continuationWithoutStart(length: Int)
        /// A start fragment arrived while a frame was incomplete (`received` of `expected` bytes, nil while its
        /// header was still incomplete); both were dropped.
        case startWhileIncomplete(received: Int, expected: Int?)
        /// The fragments carried more bytes than the frame's length field allows; the frame was dropped.
        case lengthOverrun(expected: Int, received: Int)

        public var description: String {
            switch self {
            case let .continuationWithoutStart(length):
                "L2CAP reassembly: a \(length)-byte continuation fragment arrived with no frame started"
            case let .startWhileIncomplete(received, expected):
                "L2CAP reassembly: a start fragment arrived while a frame was incomplete (\(received) of "
                    + "\(expected.map(String.init) ?? "an unknown number of") bytes); the partial frame was dropped"
            case let .lengthOverrun(expected, received):
                "L2CAP reassembly: fragments carried \(received) bytes for a frame of \(expected) bytes "
                    + "(header included)"
            }
        }
    }
}
