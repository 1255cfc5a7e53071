/// What one central measured against the benchmark's peripheral: every sample, so that both centrals' statistics
/// are computed by the same code. blerig's central fills it in-process; Bumble's prints it as JSON (snake_case).
public struct CentralMeasurement: Sendable, Hashable, Codable {
    /// Per handshake: LE Create Connection asked → link up, in milliseconds.
    public var connectMs: [Double]
    /// Per handshake: connect asked → CCCD write answered (subscribed), in milliseconds.
    public var handshakeMs: [Double]
    /// Per handshake: ATT requests the GATT client sent.
    public var attRequests: [Int]
    /// CPU time of the central over the whole handshake loop (disconnections included), in seconds: its process's,
    /// less ``harnessCpuS``.
    public var cpuS: Double
    /// CPU time the central's process spent over the loop on the benchmark's own work rather than the central's
    /// (reading rootcanal's and the peripheral's output), in seconds; nil when none ran there (Bumble's process).
    public var harnessCpuS: Double?
    /// Wall time of the handshake loop, in seconds.
    public var loopS: Double
    /// Reads from rootcanal's socket over the handshake loop, per handshake: how often the central woke for its
    /// controller. nil where it is not counted (Bumble's).
    public var readsPerHandshake: Double?
    /// Per write request to `echo`: sent → Write Response, in milliseconds.
    public var writeMs: [Double]
    public var stream: Stream
    /// The ATT_MTU the links ran at.
    public var mtu: Int

    /// One STREAM command's notifications.
    public struct Stream: Sendable, Hashable, Codable {
        /// Values received before the end-of-stream value.
        public var values: Int
        /// Their bytes (whole values, the sequence number included).
        public var bytes: Int
        /// Sequence numbers that never arrived.
        public var gaps: Int
        /// From the STREAM command's write response to the end-of-stream value, in seconds.
        public var seconds: Double
        /// Bytes per value.
        public var size: Int

        public init(values: Int, bytes: Int, gaps: Int, seconds: Double, size: Int) {
            self.values = values
            self.bytes = bytes
            self.gaps = gaps
            self.seconds = seconds
            self.size = size
        }

        /// Value bytes per second, in kB/s (1 kB = 1000 bytes).
        public var kilobytesPerSecond: Double { seconds > 0 ? Double(bytes) / seconds / 1000 : 0 }

        /// No stream: a part of a central's run that timed handshakes only.
        public static let none = Stream(values: 0, bytes: 0, gaps: 0, seconds: 0, size: 0)
    }

    public init(
        connectMs: [Double], handshakeMs: [Double], attRequests: [Int], cpuS: Double, harnessCpuS: Double? = nil,
        loopS: Double, readsPerHandshake: Double? = nil, writeMs: [Double], stream: Stream, mtu: Int
    ) {
        self.connectMs = connectMs
        self.handshakeMs = handshakeMs
        self.attRequests = attRequests
        self.cpuS = cpuS
        self.harnessCpuS = harnessCpuS
        self.loopS = loopS
        self.readsPerHandshake = readsPerHandshake
        self.writeMs = writeMs
        self.stream = stream
        self.mtu = mtu
    }

    /// One central's run from two of its parts (``HCIBenchmark`` times each central's handshakes and writes in
    /// parts, then its stream): this one's handshakes and writes, then `later`'s, their CPU and wall times added; the
    /// stream and the MTU are `later`'s unless it has none. Reads per handshake are weighted by handshakes, and given
    /// only where every part with handshakes counted them.
    public func followed(by later: CentralMeasurement) -> CentralMeasurement {
        let handshakes = handshakeMs.count + later.handshakeMs.count
        var reads: Double?
        switch (handshakeMs.isEmpty ? 0 : readsPerHandshake, later.handshakeMs.isEmpty ? 0 : later.readsPerHandshake) {
        case let (first?, second?) where handshakes > 0:
            reads = (first * Double(handshakeMs.count) + second * Double(later.handshakeMs.count)) / Double(handshakes)
        default:
            reads = nil
        }
        var harness: Double?
        if harnessCpuS != nil || later.harnessCpuS != nil { harness = (harnessCpuS ?? 0) + (later.harnessCpuS ?? 0) }
        return CentralMeasurement(
            connectMs: connectMs + later.connectMs, handshakeMs: handshakeMs + later.handshakeMs,
            attRequests: attRequests + later.attRequests, cpuS: cpuS + later.cpuS, harnessCpuS: harness,
            loopS: loopS + later.loopS, readsPerHandshake: reads, writeMs: writeMs + later.writeMs,
            stream: later.stream == .none ? stream : later.stream, mtu: later.mtu == 0 ? mtu : later.mtu)
    }

    /// One central's run from its parts in the order they ran (see ``followed(by:)``); nil for none.
    public static func joined(_ parts: [CentralMeasurement]) -> CentralMeasurement? {
        guard let first = parts.first else { return nil }
        return parts.dropFirst().reduce(first) { $0.followed(by: $1) }
    }

    /// CPU milliseconds per handshake.
    public var cpuMsPerHandshake: Double { handshakeMs.isEmpty ? 0 : cpuS * 1000 / Double(handshakeMs.count) }

    /// ATT requests per handshake, on average (they are the same every time against one peripheral).
    public var attRequestsPerHandshake: Double {
        attRequests.isEmpty ? 0 : Double(attRequests.reduce(0, +)) / Double(attRequests.count)
    }
}

/// Order statistics of a sample.
enum Percentile {
    /// The nearest-rank percentile (the smallest sample with at least `p` of the samples at or below it): for 50
    /// samples p50 is the 25th smallest and p95 the 48th. 0 for no samples.
    static func of(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
