import Foundation
import Orchestrator

/// How the cost of a virtual campaign grows with the number of boards, on one radio and on several, and how a rig of
/// independent radios (`airs: per_radio`) uses more cores: the rigs it runs, and the tables it prints. Each run is a
/// process of its own (see ``CampaignBenchmark``).
public struct ScaleBenchmark: Sendable {
    public var sizes: [Int]
    public var radioCounts: [Int]
    /// Handshakes per board.
    public var connections: Int
    /// The core counts the separate-airs rig runs on (each run pinned with taskset); empty skips that table.
    public var cores: [Int]
    /// The separate-airs rig: this many boards on this many radios.
    public var airBoards: Int
    public var airRadios: Int

    public init(
        sizes: [Int] = [1, 4, 16, 64, 256, 1024], radioCounts: [Int] = [1, 8], connections: Int = 3,
        cores: [Int] = [1, 2], airBoards: Int = 1024, airRadios: Int = 8
    ) {
        self.sizes = sizes
        self.radioCounts = radioCounts
        self.connections = connections
        self.cores = cores
        self.airBoards = airBoards
        self.airRadios = airRadios
    }

    /// A rig of `boards` boards (esp-point, nano33-ble-sense and hrm in turn) on `radios` virtual radios of 8
    /// links each: discovery, a few handshakes and the commands suite per board. With `separateAirs` each board is
    /// pinned to a radio in turn and each radio has an air of its own.
    public func rig(boards: Int, radios: Int, separateAirs: Bool = false) -> String {
        let profiles = ["esp-point", "nano33-ble-sense", "hrm"]
        var yaml = "rig: scale-\(boards)-on-\(radios)\(separateAirs ? "-airs" : "")\nradios:\n"
        for radio in 1...radios { yaml += "  - {id: r\(radio), kind: virtual, max_links: 8}\n" }
        yaml += "boards:\n"
        for board in 0..<boards {
            let pin = separateAirs ? ", radio: r\(board % radios + 1)" : ""
            yaml += "  - {id: b\(board), profile: \(profiles[board % profiles.count])\(pin)}\n"
        }
        yaml += """
            virtual: {seed: 7\(separateAirs ? ", airs: per_radio" : "")}
            suites:
              - discovery
              - handshake: {connections: \(connections)}
              - commands: {repetitions: 2}

            """
        return yaml
    }

    /// Runs every size on every radio count with `executable`, then the separate-airs rig on each core count,
    /// calling `row` with each finished line (what the machine was doing first, then each table's header).
    ///
    /// Each run's report directory is removed only once every run is done. On ext4 without a journal, new inodes
    /// skip, one by one, those freed in the last minute (six while their inode table block is dirty): a 1,024-board
    /// run started right after the previous one's files were deleted spent 1.5 s of its 5.3 s creating its own.
    public func run(executable: String, scratch: String, row: (String) -> Void) throws {
        var finished: [String] = []
        defer { for directory in finished { try? FileManager.default.removeItem(atPath: directory) } }
        row(MachineLoad.now.line)
        row("runs write to \(scratch) (\(FileSystemType.of(scratch) ?? "filesystem unknown"); TMPDIR moves it)")
        row(Self.header)
        for radios in radioCounts {
            for boards in sizes {
                let path = (scratch as NSString).appendingPathComponent("scale-\(boards)-\(radios).yaml")
                try rig(boards: boards, radios: radios).write(toFile: path, atomically: true, encoding: .utf8)
                let sample = try CampaignBenchmark.measure(executable: executable, rig: path, scratch: scratch)
                finished.append(sample.directory)
                row(Self.line(boards: boards, radios: radios, sample))
            }
        }
        guard !cores.isEmpty else { return }
        row("")
        row("\(airBoards) boards on \(airRadios) radios, an air per radio (airs: per_radio), pinned to N cores:")
        row(Self.coresHeader)
        let path = (scratch as NSString).appendingPathComponent("scale-airs.yaml")
        try rig(boards: airBoards, radios: airRadios, separateAirs: true)
            .write(toFile: path, atomically: true, encoding: .utf8)
        var first: Double?
        for count in cores {
            let sample = try CampaignBenchmark.measure(
                executable: executable, rig: path, scratch: scratch, cores: count)
            finished.append(sample.directory)
            let wall = sample.cost.wall.seconds
            first = first ?? wall
            row(Self.coresLine(cores: count, speedup: (first ?? wall) / max(wall, 1e-9), sample))
        }
        row(MachineLoad.now.line)
    }

    static let header =
        "boards | radios |  wall s |   CPU s | CPU ms/board | peak RSS MB | bench time s | checks | not passed"

    static let coresHeader = "cores |  wall s |   CPU s | speed-up | peak RSS MB | checks | not passed"

    static func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func line(boards: Int, radios: Int, _ sample: CampaignBenchmark.Sample) -> String {
        [
            pad("\(boards)", 6), pad("\(radios)", 6), pad(String(format: "%.2f", sample.cost.wall.seconds), 7),
            pad(String(format: "%.2f", sample.cost.cpu.seconds), 7),
            pad(String(format: "%.1f", sample.cost.cpu.seconds * 1000 / Double(max(1, boards))), 12),
            pad(String(format: "%.1f", Double(sample.cost.peakRSSBytes) / 1_048_576), 11),
            pad(String(format: "%.1f", sample.benchTime.seconds), 12), pad("\(sample.checks)", 6),
            pad("\(sample.notPassed)", 10),
        ].joined(separator: " | ")
    }

    /// A row of the cores table; `speedup` is the first row's wall time over this one's.
    static func coresLine(cores: Int, speedup: Double, _ sample: CampaignBenchmark.Sample) -> String {
        [
            pad("\(cores)", 5), pad(String(format: "%.2f", sample.cost.wall.seconds), 7),
            pad(String(format: "%.2f", sample.cost.cpu.seconds), 7), pad(String(format: "%.2f×", speedup), 8),
            pad(String(format: "%.1f", Double(sample.cost.peakRSSBytes) / 1_048_576), 11),
            pad("\(sample.checks)", 6), pad("\(sample.notPassed)", 10),
        ].joined(separator: " | ")
    }
}
