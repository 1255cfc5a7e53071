import BenchCore
import BLECore
import Radios
import Synchronization

/// blerig's own HCI host on a fresh rootcanal controller: the ``HCIStack`` and its ``HCICentral``, shut down with
/// the rest of the scope.
struct BlerigHost {
    let stack: HCIStack
    let central: HCICentral
    /// Everything the host reported, in order (``HCIStack/observe(_:)``).
    let events: HostEventLog

    var address: DeviceAddress? { stack.controller?.address }
}

extension InteropScope {
    /// Opens a new controller on `rootcanal` (each HCI connection is one) and blerig's host on it.
    func blerigHost(
        on rootcanal: RootcanalProcess, configuration: HCIHost.Configuration = .init(),
        connectionParameters: HCI.ConnectionParameters? = nil
    ) async throws -> BlerigHost {
        let transport = try HCITransportSpec.parse(rootcanal.hciSpec).open()
        let stack = try await HCIStack.open(transport, configuration: configuration)
        stopAtEnd("blerig's host on \(rootcanal.hciSpec)") { await stack.shutdown() }
        let events = HostEventLog()
        stack.observe { events.append($0) }
        let central = connectionParameters.map { HCICentral(stack: stack, connectionParameters: $0) }
        return BlerigHost(stack: stack, central: central ?? HCICentral(stack: stack), events: events)
    }
}

/// The events an ``HCIStack`` reported, kept for a test to look through.
final class HostEventLog: Sendable {
    private let events = Mutex<[HCIHost.Event]>([])

    func append(_ event: HCIHost.Event) {
        events.withLock { $0.append(event) }
    }

    var all: [HCIHost.Event] { events.withLock { $0 } }

    /// Waits until `done` holds (at most `timeout`: observers hear of an event after the stack has acted on
    /// it, so a test that saw the outcome may be a moment early), then returns the log either way.
    @discardableResult
    func waitFor(timeout: Duration = .seconds(2), _ done: (HostEventLog) -> Bool) async throws -> HostEventLog {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while !done(self), clock.now < deadline { try await clock.sleep(for: .milliseconds(5)) }
        return self
    }

    /// The advertising reports from `address`.
    func reports(from address: DeviceAddress) -> [HCI.AdvertisingReport] {
        all.compactMap { event in
            guard case .advertisement(let report) = event, report.address == address else { return nil }
            return report
        }
    }

    /// The statuses of the connection attempts to `peer` that failed.
    func connectionFailures(to peer: DeviceAddress) -> [HCIErrorCode] {
        all.compactMap { event in
            guard case .connectionFailed(let failed, let status) = event, failed == peer else { return nil }
            return status
        }
    }

    /// The commands that failed, with the status the controller gave.
    var commandFailures: [(opcode: HCI.Opcode, status: HCIErrorCode)] {
        all.compactMap { event in
            guard case .commandFailed(let opcode, let status) = event else { return nil }
            return (opcode, status)
        }
    }
}

extension Central {
    /// Scans with `filter` until the first advertisement passes it; throws when none does within `timeout`.
    func first(_ filter: ScanFilter, within timeout: Duration) async throws -> Advertisement {
        let found = await withTaskGroup(of: Advertisement?.self) { group in
            group.addTask {
                for await advertisement in scan(filter) { return advertisement }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        guard let found else { throw TestFailure("no advertisement passed \(filter) within \(timeout)") }
        return found
    }

    /// Scans with every filter at once for `duration` and returns what each stream delivered.
    func collect(_ filters: [ScanFilter], for duration: Duration) async -> [[Advertisement]] {
        let collected = Locked([[Advertisement]](repeating: [], count: filters.count))
        await withTaskGroup(of: Void.self) { group in
            for (index, filter) in filters.enumerated() {
                group.addTask {
                    for await advertisement in scan(filter) { collected.withLock { $0[index].append(advertisement) } }
                }
            }
            try? await Task.sleep(for: duration)
            group.cancelAll()
        }
        return collected.withLock { $0 }
    }
}

/// A value several tasks add to: a ``Mutex`` that escaping closures can capture.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) { mutex = Mutex(value) }

    func withLock<R>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// CRC-32/ISO-HDLC (zlib's): the checksum peripheral.py keeps over what `sink` received.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
