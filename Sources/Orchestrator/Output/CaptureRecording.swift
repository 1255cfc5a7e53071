import BLECore
import BenchCore
import Foundation

/// The captures a campaign writes on a wall-clock bench, for code outside a campaign that must pay what the
/// campaign pays (`blerig bench hci`'s campaign row): `captures/<board>.btsnoop` per board and
/// `captures/radio-<id>.btsnoop` per radio in a new run directory under `root`, written by an ``OutputWriter``
/// thread as in a run.
public final class CaptureRecording: CaptureSink {
    public let directory: String
    private let files: CaptureFiles
    private let writer: OutputWriter
    private let failure = Box<String>()

    /// Creates the run directory and the captures of `boards` (id and address) and `radios`.
    public init(
        root: String, name: String, boards: [(id: String, address: DeviceAddress)], radios: [String],
        unixTimeAtOrigin: Duration
    ) throws(OutputError) {
        let run = try RunDirectory.create(under: root, rig: name, seed: nil, at: .now)
        directory = run.path
        let failure = failure
        let failed: @Sendable (OutputError) -> Void = { error in failure.value = failure.value ?? error.description }
        writer = OutputWriter(failed: failed)
        files = try CaptureFiles(
            directory: run, boards: boards.map(\.id), radios: radios, writer: writer, failed: failed)
        files.start(unixTimeAtOrigin: unixTimeAtOrigin)
        for board in boards { files.register(board.address, as: board.id) }
    }

    public func record(
        radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant
    ) {
        files.record(radio: radio, peer: peer, packet: packet, direction: direction, at: at)
    }

    /// Writes out what is buffered and stops the writer; throws the first write that failed.
    public func finish() throws(OutputError) {
        writer.stop()
        try files.flush()
        if let failed = failure.value { throw OutputError(path: directory, message: failed) }
    }
}
