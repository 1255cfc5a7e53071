import BLECore

extension AdvertisingData {
    /// Octets on the air; data too long for one legacy PDU counts as the 31 octets a legacy PDU can carry.
    var encodedLength: Int {
        let bytes = (try? encoded(maximumLength: AdvertisingData.extendedMaximumLength)) ?? []
        return min(bytes.count, AdvertisingData.legacyMaximumLength)
    }
}
