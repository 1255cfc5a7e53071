import BLECore
import DeviceProfiles

/// Log Control and Log Data (docs/board-contract.md, esp-point "Log Control and Log Data"): STATUS, READ and ACK,
/// answered by indications on Log Control; READ streams the records on Log Data. The log itself (``FlashLog``, with
/// its sequence counter) is in flash; a READ in progress is RAM.
final class EspPointLogService {
    /// How long the firmware waits for a free transmit buffer before trying the next Log Data notification (the
    /// NimBLE host retries on its congestion callback; a few milliseconds is a connection event or less).
    static let dataRetryDelay: Duration = .milliseconds(5)

    /// `status` of `82` when a READ arrives while another is still streaming.
    static let readBusy: UInt8 = 1

    /// A READ in progress: where the stream is and how many records it may still send.
    struct Read {
        let connection: GATTServer.ConnectionID
        /// The lowest sequence number still to send.
        var next: UInt32
        var remaining: Int
        /// The last sequence number sent; 0 while nothing has been (0 is never a record's sequence number).
        var lastSent: UInt32 = 0
    }

    weak var board: VirtualBoard?
    private let auth: EspPointAuthService

    // MARK: Flash

    private(set) var flash: FlashLog

    // MARK: RAM

    /// A Log Control READ streaming on Log Data.
    private var read: Read?

    init(capacity: Int, auth: EspPointAuthService) {
        flash = FlashLog(capacity: capacity)
        self.auth = auth
    }

    /// Boot: no READ streams.
    func rebooted() { read = nil }

    /// A central's link went down: its READ stops.
    func closed(_ connection: GATTServer.ConnectionID) {
        if read?.connection == connection { read = nil }
    }

    /// Appends a sample to the log, warning when the ring overwrote a record nobody acknowledged.
    func append(unixTime: UInt32, temperature: Int16, humidity: UInt16, batteryMillivolts: UInt16) -> EspPoint.Reading {
        let droppedBefore = flash.dropped
        flash.append(
            unixTime: unixTime, temperature: temperature, humidity: humidity, batteryMillivolts: batteryMillivolts)
        if flash.dropped != droppedBefore {
            board?.log(.warning, "LOG", "ring full: overwrote an unacknowledged record dropped=\(flash.dropped)")
        }
        return flash.records[flash.records.count - 1]
    }

    /// FACTORY_RESET: the records go; the sequence counter stays, so sequence numbers never repeat.
    func erase() { flash.erase() }

    // MARK: Log Control

    /// A write to Log Control. Needs an authenticated connection (0x05); a request the contract does not know
    /// fails with 0x13 Value Not Allowed, a known one of the wrong length with 0x0D.
    func control(_ bytes: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard auth.isAuthenticated(connection) else { return .insufficientAuthentication }
        let request: EspPoint.LogRequest
        do { request = try EspPoint.LogRequest(decoding: bytes) } catch {
            guard let first = bytes.first, !(1...3).contains(first) else { return .invalidAttributeValueLength }
            return .valueNotAllowed
        }
        switch request {
        case .status:
            indicate(.status(flash.status))
        case let .read(from, maxCount):
            guard read == nil else {
                board?.log(.warning, "LOG", "READ refused: a READ is still streaming")
                indicate(.readDone(status: Self.readBusy, lastSent: 0))
                return nil
            }
            board?.log(.info, "LOG", "read from=\(from) max=\(maxCount)")
            read = Read(connection: connection, next: from, remaining: Int(maxCount))
            // The stream starts once the Write Response is on its way.
            board?.after(.zero) { [weak self] in self?.stream() }
        case let .acknowledge(upTo):
            flash.acknowledge(upTo: upTo)
            board?.log(.info, "LOG", "ack up_to=\(upTo) count=\(flash.records.count)")
            indicate(.acknowledged(status: 0))
            board?.refreshAdvertising()
        }
        return nil
    }

    private func indicate(_ result: EspPoint.LogResult) {
        board?.indicate(EspPoint.logControl, in: EspPoint.sensorService, result.encoded)
    }

    // MARK: Log Data

    /// Sends the READ's next Log Data notifications while the link has transmit buffers, then waits and goes on:
    /// nothing is dropped. Each carries as many records as the connection's MTU allows; a notification with none
    /// ends the stream, and `82 00 last_sent_seq` is indicated after it.
    private func stream() {
        guard let board, var read else { return }
        let perNotification = max(1, EspPoint.LogData.capacity(mtu: Int(board.mtu(of: read.connection))))
        while true {
            guard board.canNotify(on: read.connection) else {
                self.read = read
                board.after(Self.dataRetryDelay) { [weak self] in self?.stream() }
                return
            }
            let count = min(read.remaining, perNotification)
            let records = count > 0 ? Array(flash.records(from: read.next, maxCount: count)) : []
            board.notify(EspPoint.logData, in: EspPoint.sensorService, EspPoint.LogData(readings: records).encoded)
            guard let last = records.last else { break }
            read.lastSent = last.sequence
            read.next = last.sequence &+ 1
            read.remaining -= records.count
        }
        self.read = nil
        board.log(.info, "LOG", "read done last_sent=\(read.lastSent)")
        indicate(.readDone(status: 0, lastSent: read.lastSent))
    }
}
