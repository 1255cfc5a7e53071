import Foundation

/// How the cost of a virtual campaign grows with the number of boards, on one radio and on several: the rig it
/// runs per size, and the table it prints. Each size runs in its own process (see ``CampaignBenchmark``).
public struct ScaleBenchmark: Sendable {
    public var sizes: [Int]
    public var radioCounts: [Int]
    /// Handshakes per board.
    public var connections: Int

    public init(sizes: [Int] = [1, 4, 16, 64, 256, 1024], radioCounts: [Int] = [1, 8], connections: Int = 3) {
        self.sizes = sizes
        self.radioCounts = radioCounts
        self.connections = connections
    }

    /// A rig of `boards` boards (esp-point, nano33-ble-sense and hrm in turn) on `radios` virtual radios of 8
    /// links each: discovery, a few handshakes and the commands suite per board.
    public func rig(boards: Int, radios: Int) -> String {
        let profiles = ["esp-point", "nano33-ble-sense", "hrm"]
        var yaml = "rig: scale-\(boards)-on-\(radios)\nradios:\n"
        for radio in 1...radios { yaml += "  - {id: r\(radio), kind: virtual, max_links: 8}\n" }
        yaml += "boards:\n"
        for board in 0..<boards {
            yaml += "  - {id: b\(board), profile: \(profiles[board % profiles.count])}\n"
        }
        yaml += """
            virtual: {seed: 7}
            suites:
              - discovery
              - handshake: {connections: \(connections)}
              - commands: {repetitions: 2}

            """
        return yaml
    }

    /// Runs every size on every radio count with `executable`, calling `row` with each finished line of the
    /// table (the header first).
    public func run(executable: String, scratch: String, row: (String) -> Void) throws {
        row(Self.header)
        for radios in radioCounts {
            for boards in sizes {
                let path = (scratch as NSString).appendingPathComponent("scale-\(boards)-\(radios).yaml")
                try rig(boards: boards, radios: radios).write(toFile: path, atomically: true, encoding: .utf8)
                let sample = try CampaignBenchmark.measure(executable: executable, rig: path, scratch: scratch)
                try? FileManager.default.removeItem(atPath: sample.directory)
                row(Self.line(boards: boards, radios: radios, sample))
            }
        }
    }

    static let header =
        "boards | radios |  wall s |   CPU s | peak RSS MB | bench time s | checks | not passed"

    static func line(boards: Int, radios: Int, _ sample: CampaignBenchmark.Sample) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        return [
            pad("\(boards)", 6), pad("\(radios)", 6), pad(String(format: "%.2f", sample.cost.wall.seconds), 7),
            pad(String(format: "%.2f", sample.cost.cpu.seconds), 7),
            pad(String(format: "%.1f", Double(sample.cost.peakRSSBytes) / 1_048_576), 11),
            pad(String(format: "%.1f", sample.benchTime.seconds), 12), pad("\(sample.checks)", 6),
            pad("\(sample.notPassed)", 10),
        ].joined(separator: " | ")
    }
}
