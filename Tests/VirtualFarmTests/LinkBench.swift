import BLECore

@testable import VirtualFarm

/// Virtual links driven directly, without boards: one link per first anchor, all on one radio (one central) or each
/// on a radio of its own (one central each). Both ends record when each PDU arrives.
final class LinkBench: @unchecked Sendable {
    // @unchecked Sendable: made and used on the simulation thread only.
    let sim: Simulation
    let parameters: LinkParameters
    let links: [VirtualLink]
    /// The radio of each link (the same object for every link when shared).
    let radios: [RadioSchedule]
    /// Per link: when each PDU reached the central, and its size.
    private(set) var centralReceived: [[(size: Int, at: RigInstant)]]
    /// Per link: when each PDU reached the peripheral.
    private(set) var peripheralReceived: [[RigInstant]]
    /// When set, each peripheral answers every PDU it receives with a PDU of this size.
    var responseSize: Int?
    private var waiters: [[CheckedContinuation<Void, Never>]]

    /// - Parameters:
    ///   - shared: all links on one radio; otherwise a radio per link.
    ///   - transmitBuffers: per side; unlimited by default so a test can queue a whole stream at once.
    init(
        sim: Simulation, parameters: LinkParameters, anchors: [RigInstant], shared: Bool,
        transmitBuffers: Int = .max
    ) {
        self.sim = sim
        self.parameters = parameters
        let common = RadioSchedule()
        let radios = anchors.map { _ in shared ? common : RadioSchedule() }
        self.radios = radios
        links = anchors.indices.map { i in
            VirtualLink(
                sim: sim, parameters: parameters, handle: UInt16(0x40 + i), anchor0: anchors[i],
                transmitBuffers: transmitBuffers, radio: radios[i])
        }
        centralReceived = anchors.map { _ in [] }
        peripheralReceived = anchors.map { _ in [] }
        waiters = anchors.map { _ in [] }
        for (i, link) in links.enumerated() {
            link.attach(
                .central,
                .init(
                    receive: { [unowned self] pdu in
                        centralReceived[i].append((pdu.count, sim.now))
                        let woken = waiters[i]
                        waiters[i].removeAll()
                        for waiter in woken { waiter.resume() }
                    }, down: { _ in }))
            link.attach(
                .peripheral,
                .init(
                    receive: { [unowned self] _ in
                        peripheralReceived[i].append(sim.now)
                        if let size = responseSize {
                            link.send([UInt8](repeating: 0x0B, count: size), from: .peripheral)
                        }
                    }, down: { _ in }))
        }
    }

    /// Waits until the central end of link `index` has received `count` PDUs; returns when the last of them arrived.
    func centralReceived(_ count: Int, on index: Int) async -> RigInstant {
        while centralReceived[index].count < count {
            await withCheckedContinuation { waiters[index].append($0) }
        }
        return centralReceived[index][count - 1].at
    }

    /// The ATT payload of a notification that fills one LL packet (`dataLength` minus L2CAP and ATT headers).
    var fullValue: Int { parameters.dataLength - 7 }

    /// Queues `count` notifications of one full packet each on the peripheral side of link `index`.
    func notify(_ count: Int, on index: Int) {
        for _ in 0..<count {
            links[index].send([UInt8](repeating: 0x1B, count: fullValue + 3), from: .peripheral)
        }
    }

    /// Notification payload bytes link `index` delivered to the central within `window`, per second.
    func throughput(of index: Int, in window: Range<RigInstant>) -> Double {
        let delivered = centralReceived[index].filter { window.contains($0.at) }.count
        return Double(delivered * fullValue) / window.lowerBound.duration(to: window.upperBound).seconds
    }

    /// First anchors at arbitrary phases within one connection interval, drawn from `seed`.
    static func arbitraryAnchors(_ count: Int, interval: Duration, seed: UInt64) -> [RigInstant] {
        var random = SeededRandom(seed: seed, stream: "link-bench/anchors")
        let intervalNanoseconds = interval.seconds * 1e9
        return (0..<count).map { _ in
            RigInstant(sinceOrigin: .nanoseconds(Int64((random.nextUnit() * intervalNanoseconds).rounded(.down))))
        }
    }
}
