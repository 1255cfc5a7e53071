import BLECore
import CentralStack
import DeviceProfiles
import Foundation
import Orchestrator
import VirtualFarm

/// `blerig bench ota`: one esp-point on the virtual link, one image streamed from disk through the central stack's
/// OTA sender, per window; each window runs in a child process so its peak RSS is its own.
public enum OTABenchmark {
    /// What one child measured (virtual time: deterministic for the seed).
    public struct Sample: Sendable, Hashable {
        public var window: Int
        public var imageBytes: UInt32
        /// START answered ok → ACK of the last frame.
        public var transferSeconds: Double
        /// Image bytes per second over the transfer.
        public var throughput: Double
        /// The link's unacknowledged capacity: packets_per_event × (data_length − 7) / interval, in bytes per second.
        public var capacity: Double
        public var outcome: String
        public var resumes: Int
        public var naks: Int

        public var efficiency: Double { throughput / capacity }

        /// The line a child prints for its parent.
        public var line: String {
            "OTA-BENCH window=\(window) bytes=\(imageBytes) transfer_s=\(transferSeconds) throughput=\(throughput) "
                + "capacity=\(capacity) outcome=\(outcome) resumes=\(resumes) naks=\(naks)"
        }

        public init?(line: String) {
            guard line.hasPrefix("OTA-BENCH ") else { return nil }
            var f: [String: String] = [:]
            for word in line.split(separator: " ").dropFirst() {
                let parts = word.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { f[String(parts[0])] = String(parts[1]) }
            }
            guard let window = f["window"].flatMap(Int.init), let bytes = f["bytes"].flatMap(UInt32.init),
                let transfer = f["transfer_s"].flatMap(Double.init),
                let throughput = f["throughput"].flatMap(Double.init),
                let capacity = f["capacity"].flatMap(Double.init), let outcome = f["outcome"],
                let resumes = f["resumes"].flatMap(Int.init), let naks = f["naks"].flatMap(Int.init)
            else { return nil }
            self.init(
                window: window, imageBytes: bytes, transferSeconds: transfer, throughput: throughput,
                capacity: capacity,
                outcome: outcome, resumes: resumes, naks: naks)
        }

        init(
            window: Int, imageBytes: UInt32, transferSeconds: Double, throughput: Double, capacity: Double,
            outcome: String, resumes: Int, naks: Int
        ) {
            self.window = window
            self.imageBytes = imageBytes
            self.transferSeconds = transferSeconds
            self.throughput = throughput
            self.capacity = capacity
            self.outcome = outcome
            self.resumes = resumes
            self.naks = naks
        }
    }

    /// The link of the benchmark: 2M PHY, 15 ms, 6 packets per event, data length 251 (97.6 kB/s unacknowledged).
    public static let link = LinkParameters(
        connectionInterval: .milliseconds(15), packetsPerEvent: 6, phy: .le2M, dataLength: 251)

    /// Writes the benchmark's image (deterministic bytes) to `path`.
    public static func writeImage(to path: String, bytes: Int) throws {
        try OTAImageBuilder.write(to: path, size: bytes, seed: 2026)
    }

    /// Updates one virtual esp-point with the image at `path` (version 1.5.0) at `window`, in this process.
    public static func measure(imagePath: String, window: Int, batch: UInt8) async throws -> Sample {
        let image = try OTAImageFile(path: imagePath, version: FirmwareVersion(1, 5, 0))
        let report = try await Simulation.run(seed: 1) { sim in
            let farm = Farm(sim: sim, link: link)
            let board = farm.addBoard(id: "esp-bench", profile: .espPoint)
            board.powerOn()
            try await sim.clock.sleep(for: .milliseconds(500))
            let central = farm.central()
            let key = (0..<32).map { UInt8($0) }
            let spec = ProfileSpec.standard(.espPoint)
            try await Handshake.withSession(
                central: central, address: board.address, spec: spec, connectTimeout: .seconds(10)
            ) { session in try await EspPointClient(session: session).pair(key: key) }
            let transfer = OTATransfer(image: image, options: .init(window: window, batch: batch), clock: sim.clock)
            return try await transfer.run(connect: { body in
                try await Handshake.withSession(
                    central: central, address: board.address, spec: spec, connectTimeout: .seconds(10)
                ) { session in
                    try await EspPointClient(session: session).authenticate(key: key)
                    try await body(session)
                }
            })
        }
        guard let seconds = report.transferDuration?.seconds, let throughput = report.throughput else {
            throw BenchmarkError("the update reported no transfer span")
        }
        return Sample(
            window: window, imageBytes: image.size, transferSeconds: seconds, throughput: throughput,
            capacity: LinkModel(link).unacknowledgedThroughput,
            outcome: report.outcome.map { "\($0)".replacingOccurrences(of: " ", with: "_") } ?? "none",
            resumes: report.statistics.resumes, naks: report.statistics.naks)
    }

    /// Runs `executable bench ota --child-window <w> --image <path>` per window and returns each sample with the
    /// child's cost.
    public static func run(
        executable: String, imagePath: String, windows: [Int], batch: UInt8, scratch: String,
        row: (Sample, ProcessCost) -> Void
    ) throws {
        for window in windows {
            let log = (scratch as NSString).appendingPathComponent("ota-\(window).log")
            let cost = try ChildProcess.measure(
                executable,
                ["bench", "ota", "--child-window", "\(window)", "--image", imagePath, "--batch", "\(batch)"], log: log)
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            guard cost.status == 0,
                let sample = text.split(separator: "\n").lazy.compactMap({ Sample(line: String($0)) }).first
            else {
                throw BenchmarkError(
                    "window \(window): the child ended with status \(cost.status): \(text.suffix(600))")
            }
            row(sample, cost)
        }
    }
}
