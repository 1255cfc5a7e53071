import DeviceProfiles

/// The esp-point's flash ring of readings: `capacity` records, the oldest overwritten when full (and counted in
/// `dropped`, so loss is visible), freed by acknowledgement. Sequence numbers never repeat on a board: the next
/// one survives reboots and factory resets.
struct FlashLog: Equatable {
    let capacity: Int
    private(set) var records: [EspPoint.Reading] = []
    private(set) var dropped: UInt32 = 0
    private(set) var nextSequence: UInt32 = 1

    init(capacity: Int = 2048) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Appends a sample, overwriting the oldest record when the ring is full.
    mutating func append(unixTime: UInt32, temperature: Int16, humidity: UInt16, batteryMillivolts: UInt16) {
        if records.count == capacity {
            records.removeFirst()
            dropped &+= 1
        }
        records.append(EspPoint.Reading(
            sequence: nextSequence, unixTime: unixTime, temperature: temperature, humidity: humidity,
            batteryMillivolts: batteryMillivolts))
        nextSequence &+= 1
    }

    var status: EspPoint.LogStatus {
        EspPoint.LogStatus(
            oldest: records.first?.sequence ?? nextSequence, newest: records.last?.sequence ?? nextSequence &- 1,
            count: UInt32(records.count), capacity: UInt32(capacity), dropped: dropped)
    }

    /// Up to `maxCount` records with sequence ≥ `from`, oldest first.
    func records(from: UInt32, maxCount: Int) -> ArraySlice<EspPoint.Reading> {
        let start = records.firstIndex { $0.sequence >= from } ?? records.endIndex
        return records[start..<min(records.endIndex, start + maxCount)]
    }

    /// Frees every record with sequence ≤ `upTo`.
    mutating func acknowledge(upTo: UInt32) {
        records.removeAll { $0.sequence <= upTo }
    }

    /// Factory reset: the records go, the sequence counter stays.
    mutating func erase() {
        records.removeAll()
    }
}
