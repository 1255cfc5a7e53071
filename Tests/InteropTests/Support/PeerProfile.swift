import BLECore

/// The GATT profile of `share/blerig/peers/peripheral.py`, the Bumble peripheral blerig's central is tested against:
/// its UUIDs, fixed values, value layouts, command bytes and error codes. `share/blerig/peers/README.md` is the same
/// contract in prose; the two are kept equal by the smoke test, which reads every one of these through Bumble's
/// central.
///
/// UUIDs use the project's custom base `e5b1XXXX-7c3a-4f0e-9d2b-5a1c3e7f9b20` with the interop range 0xF0xx.
/// All integers are little-endian; checksums are CRC-32/ISO-HDLC (zlib's).
enum PeerProfile {
    static func uuid(_ short: UInt16) -> BluetoothUUID {
        BluetoothUUID(high: 0xE5B1_0000_7C3A_4F0E | UInt64(short) << 32, low: 0x9D2B_5A1C_3E7F_9B20)
    }

    /// The Interop Test service, advertised as a complete list of 128-bit service UUIDs.
    static let service = uuid(0xF000)
    /// read: ``shortReadValue``; has a User Description (0x2901) descriptor, ``userDescription``.
    static let shortRead = uuid(0xF001)
    /// read: ``longReadValue``, 512 bytes: needs Read Blob at any MTU below 513.
    static let longRead = uuid(0xF002)
    /// read, write with response: stores what was written (up to 512 bytes, so a long write with Prepare /
    /// Execute Write lands here too) and reads it back.
    static let echo = uuid(0xF003)
    /// write without response only: counted in ``sinkStatus``.
    static let sink = uuid(0xF004)
    /// read: ``SinkStatus``, what ``sink`` has received.
    static let sinkStatus = uuid(0xF005)
    /// notify: the ``Command/notify(count:size:)`` and ``Command/stream(milliseconds:size:)`` source.
    static let notifySource = uuid(0xF006)
    /// indicate: the ``Command/indicate(count:size:)`` source.
    static let indicateSource = uuid(0xF007)
    /// read only: ``readOnlyValue``; a write is refused (Write Not Permitted) and counted.
    static let readOnly = uuid(0xF008)
    /// write (with response) only; a read is refused (Read Not Permitted) and counted.
    static let writeOnly = uuid(0xF009)
    /// read: always fails with the application error ``ATTError/readError``.
    static let readError = uuid(0xF00A)
    /// write with response: the ``Command`` bytes.
    static let command = uuid(0xF00B)
    /// read: ``Counters``.
    static let counters = uuid(0xF00C)

    static let shortReadValue = Array("blerig interop".utf8)
    static let longReadValue = (0..<512).map { UInt8($0 % 251) }
    static let readOnlyValue = Array("read only".utf8)
    static let userDescription = Array("Short read".utf8)
    static let maximumValueLength = 512
    /// Manufacturer data in the advertisement: company 0xFFFF, then ``manufacturerData``.
    static let companyIdentifier: UInt16 = 0xFFFF
    static let manufacturerData: [UInt8] = [0x01, 0x00]
    /// The advertised name unless the peripheral is given `--name`; it is in the scan response.
    static let defaultName = "Bumble-Interop"

    /// Writes to ``command``. Each is answered with a write response first; the work follows.
    enum Command {
        /// `01 count u16 size u16`: `count` notifications of `size` bytes on ``notifySource``
        /// (4 ≤ size ≤ MTU − 3), each ``notification(sequence:size:)``. Needs a subscription.
        static func notify(count: UInt16, size: UInt16) -> [UInt8] { [0x01] + le(count) + le(size) }
        /// `02 count u16 size u16`: the same as indications on ``indicateSource``, each confirmed before the next.
        static func indicate(count: UInt16, size: UInt16) -> [UInt8] { [0x02] + le(count) + le(size) }
        /// `03`: the peripheral disconnects the central with reason 0x13 (remote user terminated) once the
        /// write response has been sent; it then advertises again.
        static let disconnect: [UInt8] = [0x03]
        /// `04 duration_ms u16 size u16`: notifications on ``notifySource`` as fast as flow control allows for
        /// the duration, then one whose sequence is ``endOfStream``. For throughput.
        static func stream(milliseconds: UInt16, size: UInt16) -> [UInt8] { [0x04] + le(milliseconds) + le(size) }
        /// `05`: zeroes every counter and empties ``echo``.
        static let reset: [UInt8] = [0x05]
    }

    /// Application ATT errors (0x80–0x9F) of the profile.
    enum ATTError: UInt8 {
        /// ``readError`` answers every read with this.
        case readError = 0x80
        /// A ``command`` write with an unknown opcode.
        case unknownOpcode = 0x81
        /// A ``command`` write with the wrong length, or a size outside 4…MTU − 3.
        case badArguments = 0x82
        /// ``Command/notify(count:size:)``, ``Command/indicate(count:size:)`` or ``Command/stream(milliseconds:size:)``
        /// without a subscription to the source.
        case notSubscribed = 0x83
    }

    /// The sequence number of a stream's last notification.
    static let endOfStream: UInt32 = 0xFFFF_FFFF

    /// A notification or indication: `seq u32`, then `size − 4` filler bytes `(seq + i) & 0xFF`.
    static func notification(sequence: UInt32, size: Int) -> [UInt8] {
        le(sequence) + (0..<max(0, size - 4)).map { UInt8(truncatingIfNeeded: Int(sequence) &+ $0) }
    }

    /// ``sinkStatus``: `count u32 | bytes u32 | crc32 u32` over everything written to ``sink``, in order.
    struct SinkStatus: Hashable {
        var count: UInt32
        var bytes: UInt32
        var crc32: UInt32

        init?(_ value: [UInt8]) {
            guard value.count == 12 else { return nil }
            count = PeerProfile.u32(value, 0)
            bytes = PeerProfile.u32(value, 4)
            crc32 = PeerProfile.u32(value, 8)
        }
    }

    /// ``counters``: `echo_writes u16 | prepare_writes u16 | write_only_writes u16 | refused_reads u16 |
    /// refused_writes u16 | indications_confirmed u16 | notifications_sent u32` (16 bytes; u16s saturate).
    struct Counters: Hashable {
        /// Values stored in ``echo`` (a Write Request, or an Execute Write that committed).
        var echoWrites: UInt16
        /// Prepare Write Requests received, for any characteristic: proof of the long write procedure.
        var prepareWrites: UInt16
        /// Writes to ``writeOnly``.
        var writeOnlyWrites: UInt16
        /// Reads refused because the characteristic is not readable: a correct central makes none.
        var refusedReads: UInt16
        /// Writes refused because the characteristic is not writable.
        var refusedWrites: UInt16
        var indicationsConfirmed: UInt16
        var notificationsSent: UInt32

        init?(_ value: [UInt8]) {
            guard value.count == 16 else { return nil }
            echoWrites = PeerProfile.u16(value, 0)
            prepareWrites = PeerProfile.u16(value, 2)
            writeOnlyWrites = PeerProfile.u16(value, 4)
            refusedReads = PeerProfile.u16(value, 6)
            refusedWrites = PeerProfile.u16(value, 8)
            indicationsConfirmed = PeerProfile.u16(value, 10)
            notificationsSent = PeerProfile.u32(value, 12)
        }
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<T.bitWidth / 8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    private static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
