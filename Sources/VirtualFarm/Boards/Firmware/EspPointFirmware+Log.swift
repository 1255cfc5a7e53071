import BLECore
import DeviceProfiles

/// Log Control and Log Data (docs/board-contract.md, esp-point "Log Control and Log Data"): STATUS, READ and ACK,
/// answered by indications on Log Control; READ streams the records on Log Data.
extension EspPointFirmware {
    /// How long the firmware waits for a free transmit buffer before trying the next Log Data notification (the
    /// NimBLE host retries on its congestion callback; a few milliseconds is a connection event or less).
    static let logDataRetryDelay: Duration = .milliseconds(5)

    /// `status` of `82` when a READ arrives while another is still streaming.
    static let readBusy: UInt8 = 1

    /// A READ in progress: where the stream is and how many records it may still send.
    struct LogRead {
        let connection: GATTServer.ConnectionID
        /// The lowest sequence number still to send.
        var next: UInt32
        var remaining: Int
        /// The last sequence number sent; 0 while nothing has been (0 is never a record's sequence number).
        var lastSent: UInt32 = 0
    }

    /// A write to Log Control. Needs an authenticated connection (0x05); a request the contract does not know
    /// fails with 0x13 Value Not Allowed, a known one of the wrong length with 0x0D.
    func logControl(_ bytes: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard isAuthenticated(connection) else { return .insufficientAuthentication }
        let request: EspPoint.LogRequest
        do { request = try EspPoint.LogRequest(decoding: bytes) } catch {
            guard let first = bytes.first, !(1...3).contains(first) else { return .invalidAttributeValueLength }
            return .valueNotAllowed
        }
        switch request {
        case .status:
            indicate(.status(log.status))
        case let .read(from, maxCount):
            guard logRead == nil else {
                board?.log("W", "LOG", "READ refused: a READ is still streaming")
                indicate(.readDone(status: Self.readBusy, lastSent: 0))
                return nil
            }
            board?.log("I", "LOG", "read from=\(from) max=\(maxCount)")
            logRead = LogRead(connection: connection, next: from, remaining: Int(maxCount))
            // The stream starts once the Write Response is on its way.
            board?.after(.zero) { [weak self] in self?.streamLog() }
        case let .acknowledge(upTo):
            log.acknowledge(upTo: upTo)
            board?.log("I", "LOG", "ack up_to=\(upTo) count=\(log.records.count)")
            indicate(.acknowledged(status: 0))
            advertisedStateChanged()
        }
        return nil
    }

    private func indicate(_ result: EspPoint.LogResult) {
        board?.indicate(EspPoint.logControl, in: EspPoint.sensorService, result.encoded)
    }

    /// Sends the READ's next Log Data notifications while the link has transmit buffers, then waits and goes on:
    /// nothing is dropped. Each carries as many records as the connection's MTU allows; a notification with none
    /// ends the stream, and `82 00 last_sent_seq` is indicated after it.
    func streamLog() {
        guard let board, var read = logRead else { return }
        let perNotification = max(1, EspPoint.LogData.capacity(mtu: Int(board.mtu(of: read.connection))))
        while true {
            guard board.canNotify(on: read.connection) else {
                logRead = read
                board.after(Self.logDataRetryDelay) { [weak self] in self?.streamLog() }
                return
            }
            let count = min(read.remaining, perNotification)
            let records = count > 0 ? Array(log.records(from: read.next, maxCount: count)) : []
            board.notify(EspPoint.logData, in: EspPoint.sensorService, EspPoint.LogData(readings: records).encoded)
            guard let last = records.last else { break }
            read.lastSent = last.sequence
            read.next = last.sequence &+ 1
            read.remaining -= records.count
        }
        logRead = nil
        board.log("I", "LOG", "read done last_sent=\(read.lastSent)")
        indicate(.readDone(status: 0, lastSent: read.lastSent))
    }
}
