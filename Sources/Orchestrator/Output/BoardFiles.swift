import BLECore
import BenchCore
import Foundation
import Synchronization

/// The btsnoop capture of every board, `captures/<board>.btsnoop`, streamed as the radios report traffic: the
/// HCI packets of the board's connections as the central's host exchanged them with its controller. Packets about
/// a device that is no board of the rig are not kept there. A hardware radio also gets the whole of its HCI
/// traffic (controller set-up and scanning included) in `captures/radio-<id>.btsnoop`.
///
/// A radio records on the thread that reads its controller, between one packet and the next. Recording there only
/// keeps the packet; the records are encoded into the files in batches of ``batch``, on the writer's thread when
/// there is one, and by ``flush()``: a packet then costs its thread a lock and an append, not the encoding of two
/// records on a thread that has just woken (docs/benchmarks.md, "The host alone").
final class CaptureFiles: CaptureSink, BufferedOutput {
    private let writer = Mutex(BTSnoop.Writer(unixTimeAtOrigin: .zero))
    private let byBoard: [String: AppendFile]
    /// In the rig's order; a rig has a few radios, found by comparing names rather than hashing one per packet.
    private let byRadio: [(radio: String, file: AppendFile)]
    /// Each registered device's board capture.
    private let owners = Mutex<[DeviceAddress: AppendFile]>([:])
    private let failed: @Sendable (OutputError) -> Void
    private let output: OutputWriter?
    /// Packets recorded and not yet encoded, oldest first.
    private let pending = Mutex<[Pending]>([])
    /// Held while records taken from ``pending`` are encoded, so that batches reach the files in the order taken.
    private let encoding = Mutex(())

    /// Records kept before they are encoded.
    static let batch = 128

    private struct Pending: Sendable {
        var board: AppendFile?
        var whole: AppendFile?
        var packet: HCI.H4Packet
        var direction: HCI.Direction
        var at: RigInstant
    }

    /// Creates one capture per board, each starting with the btsnoop header.
    init(
        directory: RunDirectory, boards: [String], radios: [String] = [], writer: OutputWriter? = nil,
        failed: @escaping @Sendable (OutputError) -> Void
    ) throws(OutputError) {
        let header = BTSnoop.Writer(unixTimeAtOrigin: .zero).header
        func create(_ path: String) throws(OutputError) -> AppendFile {
            let file = try AppendFile(creating: directory.file(path), writer: writer)
            try file.append(header)
            return file
        }
        var files: [String: AppendFile] = [:]
        for board in boards { files[board] = try create(Self.relativePath(board)) }
        byBoard = files
        var radioFiles: [(String, AppendFile)] = []
        for radio in radios where !radioFiles.contains(where: { $0.0 == radio }) {
            radioFiles.append((radio, try create(Self.relativePath(radio: radio))))
        }
        byRadio = radioFiles
        self.failed = failed
        output = writer
    }

    static func relativePath(_ board: String) -> String { "captures/\(board).btsnoop" }
    static func relativePath(radio: String) -> String { "captures/radio-\(radio).btsnoop" }

    /// Places the bench clock's origin on the calendar, for record timestamps; call it once the bench is open.
    func start(unixTimeAtOrigin: Duration) {
        writer.withLock { $0 = BTSnoop.Writer(unixTimeAtOrigin: unixTimeAtOrigin) }
    }

    /// From now on, traffic with `address` goes into `board`'s capture.
    func register(_ address: DeviceAddress, as board: String) {
        guard let file = byBoard[board] else { return }
        owners.withLock { $0[address] = file }
    }

    func record(radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant) {
        let board = peer.flatMap { peer in owners.withLock { $0[peer] } }
        let whole = byRadio.first(where: { $0.radio == radio })?.file
        guard board != nil || whole != nil else { return }
        let full = pending.withLock { pending in
            pending.append(Pending(board: board, whole: whole, packet: packet, direction: direction, at: at))
            return pending.count >= Self.batch
        }
        guard full else { return }
        if let output { output.flushSoon(self) } else { encodePending() }
    }

    /// Encodes the records kept so far into their files' buffers, which write out as they fill.
    private func encodePending() {
        encoding.withLock { _ in
            let records = pending.withLock { pending in
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            guard !records.isEmpty else { return }
            // The writer is a value, copied out of its lock: radios on every core record at once.
            let snoop = writer.withLock { $0 }
            for record in records {
                for file in [record.board, record.whole] {
                    guard let file else { continue }
                    do throws(OutputError) {
                        try file.append { bytes in
                            snoop.appendRecord(record.packet, direction: record.direction, at: record.at, to: &bytes)
                        }
                    } catch {
                        failed(error)
                    }
                }
            }
        }
    }

    /// On the writer's thread: the records kept so far go into their files' buffers.
    func writeBuffered() throws(OutputError) { encodePending() }

    /// The capture files, in no particular order.
    var files: [AppendFile] { Array(byBoard.values) + byRadio.map(\.file) }

    /// Encodes every record kept, then writes every file out.
    func flush() throws(OutputError) {
        encodePending()
        for file in files { try file.flush() }
    }
}

/// Every board's console, `console/<board>.log`, one line per console line, stamped with bench time in seconds.
final class ConsoleFiles: Sendable {
    private let byBoard: [String: AppendFile]

    init(directory: RunDirectory, boards: [String], writer: OutputWriter? = nil) throws(OutputError) {
        var files: [String: AppendFile] = [:]
        for board in boards {
            files[board] = try AppendFile(creating: directory.file(Self.relativePath(board)), writer: writer)
        }
        byBoard = files
    }

    static func relativePath(_ board: String) -> String { "console/\(board).log" }

    func append(_ entry: ConsoleEntry, board: String) throws(OutputError) {
        let stamp = String(format: "[%12.6f] ", entry.at.sinceOrigin.seconds)
        try byBoard[board]?.append(Array((stamp + entry.text + "\n").utf8))
    }

    /// The console files, in no particular order.
    var files: [AppendFile] { Array(byBoard.values) }

    func flush() throws(OutputError) {
        for file in byBoard.values { try file.flush() }
    }
}
