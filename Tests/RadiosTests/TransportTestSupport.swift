import BenchCore
import BLECore
import Glibc
import Radios
import Synchronization
import Testing

/// The tests that open descriptors and start reader threads, one at a time, so each can check that it left no
/// descriptor open: the suites live in extensions of this one.
@Suite(.serialized) struct TransportIO {}

/// What a transport delivered, recorded from its reader thread.
final class TransportRecorder: Sendable {
    private let state = Mutex(Recorded())

    private struct Recorded {
        var packets: [HCI.H4Packet] = []
        var closings: [HCITransportError?] = []
    }

    /// Starts `transport` with callbacks that record; `onPacket` runs on the reader thread after each is recorded.
    func start(_ transport: any HCITransport, onPacket: @escaping @Sendable (HCI.H4Packet) -> Void = { _ in }) {
        transport.start(
            packet: { packet in
                self.state.withLock { $0.packets.append(packet) }
                onPacket(packet)
            },
            closed: { error in self.state.withLock { $0.closings.append(error) } })
    }

    var packets: [HCI.H4Packet] { state.withLock { $0.packets } }
    /// Every call of `closed`, in order: exactly one once the transport ended.
    var closings: [HCITransportError?] { state.withLock { $0.closings } }

    /// The packets once there are `count` of them, or what there is after `timeout`.
    func packets(count: Int, within timeout: Duration = .seconds(5)) -> [HCI.H4Packet] {
        waitFor(timeout) { $0.packets.count >= count }
        return packets
    }

    /// The error `closed` reported, once it was called; a recorded issue when it was not within `timeout`.
    func closedError(within timeout: Duration = .seconds(5)) -> HCITransportError? {
        waitFor(timeout) { !$0.closings.isEmpty }
        let closings = closings
        #expect(closings.count == 1, "closed should be called exactly once, not \(closings.count) times")
        return closings.first ?? nil
    }

    private func waitFor(_ timeout: Duration, _ condition: (Recorded) -> Bool) {
        let deadline = ContinuousClock.now + timeout
        while !state.withLock({ condition($0) }) && ContinuousClock.now < deadline { usleep(1000) }
    }
}

/// The descriptors this process has open, from /proc/self/fd.
func openDescriptors() -> Set<Int32> {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var descriptors: Set<Int32> = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if let descriptor = Int32(name), descriptor != own { descriptors.insert(descriptor) }
    }
    return descriptors
}

/// What a descriptor refers to (`socket:[123]`, `/dev/pts/4`), or nil once it is closed.
func descriptorTarget(_ descriptor: Int32) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Runs `body` and records an issue for each descriptor it left open: a socket, pty or event descriptor that was
/// not open before. The check is process-wide and other suites run in parallel, so a descriptor that appeared
/// meanwhile counts only if it is still open, still the same object, two seconds later (a transport's leak
/// never closes; another test's descriptor does).
func expectNoLeakedDescriptors(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) rethrows {
    let before = Dictionary(uniqueKeysWithValues: openDescriptors().map { ($0, descriptorTarget($0)) })
    try body()
    func candidates() -> [Int32: String] {
        var found: [Int32: String] = [:]
        for descriptor in openDescriptors() {
            guard let target = descriptorTarget(descriptor), before[descriptor] != target else { continue }
            // Dispatch creates its timerfd, eventfd and epoll descriptors once per process, the first time any
            // test sleeps on it; they stay open for good, and no transport opens one of its own.
            let runtime = ["anon_inode:[timerfd]", "anon_inode:[eventfd]", "anon_inode:[eventpoll]"]
            if target.hasPrefix("socket:") || target.hasPrefix("/dev/pts") || target.hasPrefix("/dev/ptmx")
                || (target.hasPrefix("anon_inode:") && !runtime.contains(target))
            {
                found[descriptor] = target
            }
        }
        return found
    }
    var leaked = candidates()
    let deadline = ContinuousClock.now + .seconds(2)
    while !leaked.isEmpty, ContinuousClock.now < deadline {
        usleep(20_000)
        leaked = leaked.filter { descriptorTarget($0.key) == $0.value }
    }
    #expect(leaked.isEmpty, "descriptors left open: \(leaked.sorted { $0.key < $1.key })", sourceLocation: sourceLocation)
}

extension TransportIO {
    @Suite struct DescriptorCheckTests {
        @Test("the leak check sees a descriptor opened, and sees it go when closed")
        func seesDescriptors() {
            let before = openDescriptors()
            #expect(!before.isEmpty)
            var pair: [Int32] = [-1, -1]
            #expect(pipe(&pair) == 0)
            // Other suites open and close descriptors meanwhile: only the pipe's are this test's to look at.
            #expect(openDescriptors().isSuperset(of: pair))
            let targets = pair.map(descriptorTarget)
            #expect(targets.allSatisfy { $0?.hasPrefix("pipe:") == true }, "\(targets)")
            close(pair[0])
            close(pair[1])
            // Gone; a number another test's descriptor took meanwhile names another object.
            #expect(zip(pair, targets).allSatisfy { descriptorTarget($0) != $1 })
        }

        @Test("a socket left open fails the leak check")
        func catchesALeak() {
            var pair: [Int32] = [-1, -1]
            withKnownIssue {
                expectNoLeakedDescriptors { #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0) }
            }
            close(pair[0])
            close(pair[1])
        }
    }
}

/// Writes all of `bytes` to a blocking descriptor.
func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else {
            Issue.record("write failed: errno \(errno)")
            return
        }
        offset += count
    }
}

/// Reads exactly `count` bytes from a descriptor, waiting up to `timeout` for them.
func readExactly(_ descriptor: Int32, _ count: Int, within timeout: Duration = .seconds(5)) -> [UInt8] {
    var bytes: [UInt8] = []
    let deadline = ContinuousClock.now + timeout
    var buffer = [UInt8](repeating: 0, count: max(count, 1))
    while bytes.count < count && ContinuousClock.now < deadline {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 50) > 0 else { continue }
        let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, count - bytes.count) }
        if got <= 0 { break }
        bytes += buffer[..<got]
    }
    return bytes
}

/// HCI packets for the tests, byte for byte as controllers send them.
enum Packets {
    /// Command Complete for HCI_Reset, status success (Core 5.4 Vol 4 Part E §7.7.14, §7.3.2).
    static let resetComplete = HCI.H4Packet(type: .event, body: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00])
    /// HCI_Reset.
    static let reset = HCI.H4Packet(type: .command, body: [0x03, 0x0C, 0x00])
    /// Disconnection Complete, handle 0x0040, reason 0x13.
    static let disconnectionComplete = HCI.H4Packet(type: .event, body: [0x05, 0x04, 0x00, 0x40, 0x00, 0x13])

    /// Number of Completed Packets, one packet on handle 0x0040: 8 bytes with its indicator (§7.7.19).
    static let completedPackets = HCI.H4Packet(type: .event, body: [0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00])

    /// An ACL packet on handle 0x0040 carrying `payload`.
    static func acl(_ payload: [UInt8]) -> HCI.H4Packet {
        HCI.H4Packet(type: .aclData, body: [0x40, 0x20, UInt8(payload.count), 0x00] + payload)
    }
}
