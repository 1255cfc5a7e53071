import BLECore

extension Profile {
    /// The public address a board model of this profile takes when the rig gives it none: the Espressif OUI
    /// 24:0A:C4 for esp-point, Arduino's 84:CC:A8 for the Nano, Polar's A0:9E:1A for the hrm, the profile file's `virtual.oui` for a described board, and three bytes hashed
    /// (FNV-1a, folded) from the board id. Stable across runs; two ids may hash alike, which is why the rig loader
    /// checks every board's address, derived or written, before a run (the virtual air holds one board per
    /// address).
    public func modelAddress(forBoard id: String) -> DeviceAddress {
        let oui: UInt64 =
            switch self {
            case .espPoint: 0x240AC4
            case .nano33BLESense: 0x84CCA8
            case .hrm: 0xA09E1A
            case .described(let data): UInt64(data.simulation.oui)
            }
        let hash = id.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
        return DeviceAddress(oui << 24 | (hash ^ hash >> 24 ^ hash >> 48) & 0xFF_FFFF)
    }
}
