import ArgumentParser
import Benches
import Benchmarks
import Foundation
import Orchestrator

extension Blerig.Bench {
    struct OTA: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ota",
            abstract: "OTA of an image on the virtual link (2M PHY, 15 ms, 6 packets per event) for each window.",
            discussion: """
                The image is written to a scratch directory and streamed from disk by the central stack's OTA sender \
                to a virtual esp-point. Each window runs in a child process: kB/s over START ok → last ACK (virtual \
                time, deterministic), the share of the link's unacknowledged capacity (packets_per_event × \
                (data_length − 7) per interval = 97.6 kB/s), and the child's peak RSS from wait4(2). The child holds \
                the board model too, whose flash bank keeps the image (its size in RSS); a 64 KiB row shows the floor.

                \(Blerig.Bench.exitSection)
                """)

        @Option(help: "Image size in MiB.")
        var sizeMib = 10

        @Option(help: "Windows, comma-separated.", transform: Scale.integers)
        var windows: [Int] = [1, 2, 4, 8]

        @Option(help: "Frames per ACK.")
        var batch = 10

        @Option(help: ArgumentHelp(visibility: .private))
        var childWindow: Int?

        @Option(help: ArgumentHelp(visibility: .private))
        var image: String?

        func validate() throws {
            guard (1...12).contains(sizeMib) else {
                throw ValidationError("--size-mib must be 1 to 12 (a bank holds 12 MiB)")
            }
            guard (1...255).contains(batch) else { throw ValidationError("--batch must be 1 to 255") }
            guard windows.allSatisfy({ (1...255).contains($0) }) else { throw ValidationError("windows are 1 to 255") }
        }

        func run() async throws {
            if let childWindow, let image {
                do {
                    let sample = try await OTABenchmark.measure(
                        imagePath: image, window: childWindow, batch: UInt8(batch))
                    LineOutput.standardOutput.print(sample.line)
                } catch {
                    LineOutput.standardError.print("blerig: \(error)")
                    throw ExitCode(ExitStatus.infrastructure.rawValue)
                }
                return
            }
            let scratch = try scratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let big = (scratch as NSString).appendingPathComponent("image-\(sizeMib)MiB.bin")
            let small = (scratch as NSString).appendingPathComponent("image-64KiB.bin")
            let out = LineOutput.standardOutput
            do {
                try OTABenchmark.writeImage(to: big, bytes: sizeMib * 1_048_576)
                try OTABenchmark.writeImage(to: small, bytes: 64 * 1024)
                out.print("image     window  transfer_s  kB/s    capacity  peak RSS  wall   outcome")
                func cell(_ text: String, _ width: Int) -> String {
                    text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0)
                }
                func row(_ label: String) -> (OTABenchmark.Sample, ProcessCost) -> Void {
                    { sample, cost in
                        out.print(
                            cell(label, 10) + cell("\(sample.window)", 8)
                                + cell(String(format: "%.1f", sample.transferSeconds), 12)
                                + cell(String(format: "%.1f", sample.throughput / 1000), 8)
                                + cell(String(format: "%.1f %%", sample.efficiency * 100), 10)
                                + cell(String(format: "%.1f MB", Double(cost.peakRSSBytes) / 1_048_576), 10)
                                + cell(String(format: "%.1f s", cost.wall.seconds), 7) + sample.outcome)
                    }
                }
                try OTABenchmark.run(
                    executable: ChildProcess.currentExecutable, imagePath: big, windows: windows, batch: UInt8(batch),
                    scratch: scratch, row: row("\(sizeMib) MiB"))
                try OTABenchmark.run(
                    executable: ChildProcess.currentExecutable, imagePath: small, windows: [4], batch: UInt8(batch),
                    scratch: scratch, row: row("64 KiB"))
            } catch {
                LineOutput.standardError.print("blerig: \(error)")
                throw ExitCode(ExitStatus.infrastructure.rawValue)
            }
            out.print(
                "kB/s: image bytes ÷ (START ok → last ACK), virtual time, 1 kB = 1000 B; capacity: that ÷ "
                    + "97.6 kB/s (6 × 244 B per 15 ms); peak RSS: the child's ru_maxrss (board model included)")
        }
    }
}
