import BLECore
import BenchCore
import Foundation
import Synchronization

/// The btsnoop capture of every board, `captures/<board>.btsnoop`, streamed as the radios report traffic: the
/// HCI packets of the board's connections as the central's host exchanged them with its controller. Packets about
/// a device that is no board of the rig are not kept there. A hardware radio also gets the whole of its HCI
/// traffic (controller set-up and scanning included) in `captures/radio-<id>.btsnoop`.
final class CaptureFiles: CaptureSink {
    private let writer = Mutex(BTSnoop.Writer(unixTimeAtOrigin: .zero))
    private let byBoard: [String: AppendFile]
    private let byRadio: [String: AppendFile]
    private let owners = Mutex<[DeviceAddress: String]>([:])
    private let failed: @Sendable (OutputError) -> Void

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
        var radioFiles: [String: AppendFile] = [:]
        for radio in radios { radioFiles[radio] = try create(Self.relativePath(radio: radio)) }
        byRadio = radioFiles
        self.failed = failed
    }

    static func relativePath(_ board: String) -> String { "captures/\(board).btsnoop" }
    static func relativePath(radio: String) -> String { "captures/radio-\(radio).btsnoop" }

    /// Places the bench clock's origin on the calendar, for record timestamps; call it once the bench is open.
    func start(unixTimeAtOrigin: Duration) {
        writer.withLock { $0 = BTSnoop.Writer(unixTimeAtOrigin: unixTimeAtOrigin) }
    }

    /// From now on, traffic with `address` goes into `board`'s capture.
    func register(_ address: DeviceAddress, as board: String) {
        owners.withLock { $0[address] = board }
    }

    func record(radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant) {
        let board = peer.flatMap { peer in owners.withLock { $0[peer] } }.flatMap { byBoard[$0] }
        let whole = byRadio[radio]
        guard board != nil || whole != nil else { return }
        // Encoded outside the lock (the writer is a value): radios on every core record at once.
        let bytes = writer.withLock { $0 }.recordBytes(packet, direction: direction, at: at)
        for file in [board, whole].compactMap(\.self) {
            do { try file.append(bytes) } catch { failed(error) }
        }
    }

    /// The capture files, in no particular order.
    var files: [AppendFile] { Array(byBoard.values) + Array(byRadio.values) }

    func flush() throws(OutputError) {
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
