import BLECore

/// An LE physical layer and the airtime of a link-layer packet on it (Core 5.4 Vol 6 Part B §2.1 and §2.2).
public enum PHY: String, Sendable, Hashable, CaseIterable {
    /// LE 1M: 1 µs per bit; 1-byte preamble, 4-byte access address, 2-byte header, payload, 3-byte CRC.
    case le1M = "1M"
    /// LE 2M: 0.5 µs per bit and a 2-byte preamble.
    case le2M = "2M"
    /// LE Coded with S = 8: 80 µs preamble, FEC block 1 (access address, coding indicator, TERM1) at 296 µs,
    /// then header, payload, CRC and TERM2 at 8 µs per bit.
    case leCoded = "coded"

    /// The inter frame space between two packets of a connection event (T_IFS, Vol 6 Part B §4.1.1).
    public static let interFrameSpace: Duration = .microseconds(150)

    /// The airtime of a packet carrying `payload` octets of LL payload (0 for an empty packet).
    public func packetAirtime(payload: Int) -> Duration {
        switch self {
        case .le1M: .microseconds(Double((1 + 4 + 2 + payload + 3) * 8))
        case .le2M: .microseconds(Double((2 + 4 + 2 + payload + 3) * 4))
        case .leCoded: .microseconds(Double(80 + 296 + (2 * 8 + payload * 8 + 24 + 3) * 8))
        }
    }

    /// One exchange in a connection event: a packet each way and the two inter frame spaces.
    public func exchangeDuration(centralPayload: Int, peripheralPayload: Int) -> Duration {
        packetAirtime(payload: centralPayload) + Self.interFrameSpace + packetAirtime(payload: peripheralPayload)
            + Self.interFrameSpace
    }
}
