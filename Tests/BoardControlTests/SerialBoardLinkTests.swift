import BLECore
import BenchCore
import Glibc
import Synchronization
import Testing

@testable import BoardControl

@Suite("A board's console and reset lines on one port")
struct SerialBoardLinkTests {
    typealias Pty = SerialPortTests.Pty

    static func link(_ pty: Pty, _ tree: TemporaryTree, wiring: ResetWiring = .esp32Classic) throws -> SerialBoardLink {
        try SerialBoardLink(
            name: .path(pty.slavePath), settings: .init(baud: 115_200), wiring: wiring, clock: WallClock(),
            environment: SerialPortTests.environment(tree))
    }

    /// Waits up to 2 s for `count` entries.
    static func wait(for count: Int, in entries: borrowing Mutex<[ConsoleEntry]>) async throws {
        for _ in 0..<200 where entries.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test func linesCarryTheirArrivalAndTheirBoot() async throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let link = try Self.link(pty, tree)
        defer { link.close() }
        let entries = Mutex<[ConsoleEntry]>([])
        link.attach { entry in entries.withLock { $0.append(entry) } }
        pty.board("left over\r\nBOOT fw=1.4.2 bank=A reset=EXT boot_id=0000002a\r\n")
        pty.board("READY name=ESP-Point-1a2b addr=24:0A:C4:12:1A:2B\nBOOT fw=1.4.2 bank=A reset=SW boot_id=0000002b\n")
        try await Self.wait(for: 4, in: entries)
        let seen = entries.withLock { $0 }
        #expect(
            seen.map(\.text) == [
                "left over", "BOOT fw=1.4.2 bank=A reset=EXT boot_id=0000002a",
                "READY name=ESP-Point-1a2b addr=24:0A:C4:12:1A:2B", "BOOT fw=1.4.2 bank=A reset=SW boot_id=0000002b",
            ])
        #expect(seen.map(\.boot) == [nil, 0x2a, 0x2a, 0x2b])
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.at <= $1.at })
    }

    @Test func typedCommandsReachTheBoard() async throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let link = try Self.link(pty, tree)
        defer { link.close() }
        try await link.send("log-fill 5")
        var buffer = [UInt8](repeating: 0, count: 64)
        var entry = pollfd(fd: pty.master, events: Int16(POLLIN), revents: 0)
        #expect(poll(&entry, 1, 1000) == 1)
        let count = buffer.withUnsafeMutableBytes { read(pty.master, $0.baseAddress, $0.count) }
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "log-fill 5\n")
    }

    @Test func aResetTheWiringCannotDoIsRefusedWithWhatItCanDo() async throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        let link = try Self.link(pty, tree, wiring: .preset(.hardReset))
        defer { link.close() }
        #expect(link.kinds == [.run])
        let error = await #expect(throws: BenchError.self) { try await link.reset(.bootloader) }
        #expect(
            error?.message
                == "serial port \(pty.slavePath) is wired for hard-reset resets, which cannot do a bootloader reset (it does run)"
        )
    }

    @Test func aPortThatVanishesIsReportedAndTheLinkStillCloses() async throws {
        let pty = try Pty()
        let tree = TemporaryTree()
        // Named through a link, as /dev/serial/by-id names a board, and the link removed with the port: the
        // kernel hands a freed /dev/pts number to the next pseudo-terminal opened, and a test running beside this
        // one that got it within the time taken here would be "the port back" for the link to reopen.
        tree.directory("by-id")
        let name = tree.path("by-id/usb-board-if00")
        try #require(symlink(pty.slavePath, name) == 0)
        let link = try SerialBoardLink(
            name: .path(name), settings: .init(baud: 115_200), wiring: .esp32Classic, clock: WallClock(),
            environment: SerialPortTests.environment(tree))
        let statuses = Mutex<[String]>([])
        link.onStatus { message in statuses.withLock { $0.append(message) } }
        link.attach { _ in }
        unlink(name)
        pty.dropSlave()
        pty.hangUp()
        for _ in 0..<200 where statuses.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(statuses.withLock { $0.first?.contains("went away") } == true)
        let sendError = await #expect(throws: BenchError.self) { try await link.send("status") }
        #expect(sendError?.code == .gone)
        let started = ContinuousClock.now
        link.close()
        #expect(started.duration(to: .now) < .seconds(1))
    }
}
