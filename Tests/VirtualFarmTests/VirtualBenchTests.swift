import BLECore
import BenchCore
import DeviceProfiles
import Synchronization
import Testing

@testable import VirtualFarm

/// The virtual farm behind the bench interfaces: power, reset lines, console and capture behave as the hardware
/// drivers will.
@Suite("Virtual bench drivers")
struct VirtualBenchTests {
    static let configuration = VirtualBenchConfiguration(
        seed: 9, radios: [.init(id: "r1", maxLinks: 2)],
        boards: [
            .init(id: "esp-01", profile: .espPoint, resets: [.run, .bootloader]),
            .init(id: "nano-01", profile: .nano33BLESense),
        ])

    /// Console entries, collected.
    final class Lines: Sendable {
        let entries = Mutex<[ConsoleEntry]>([])
        var all: [ConsoleEntry] { entries.withLock { $0 } }
        var texts: [String] { all.map(\.text) }
    }

    static func withBench<T: Sendable>(_ body: @escaping @Sendable (VirtualBench) async throws -> T) async throws -> T {
        try await VirtualBenchLauncher(configuration).withBench { bench in
            try await body(try #require(bench as? VirtualBench))
        }.value
    }

    @Test("every board starts off; power on boots with POWERON, and each boot tags its lines with its own id")
    func powerAndBoots() async throws {
        try await Self.withBench { bench in
            let board = bench.boards[0]
            let lines = Lines()
            board.console?.attach { entry in lines.entries.withLock { $0.append(entry) } }
            try await bench.clock.sleep(for: .seconds(1))
            #expect(lines.all.isEmpty)
            #expect(bench.virtualBoards[0].isPowered == false)
            try await board.power?.on()
            try await bench.clock.sleep(for: .seconds(2))
            let first = lines.all
            #expect(first.first?.text.hasPrefix("BOOT fw=1.4.2 bank=A reset=POWERON boot_id=") == true)
            #expect(first.contains { $0.text.hasPrefix("READY name=ESP-Point-") })
            let firstBoot = try #require(first.first?.boot)
            #expect(first.allSatisfy { $0.boot == firstBoot })
            try await board.power?.cycle(offFor: .milliseconds(300), clock: bench.clock)
            try await bench.clock.sleep(for: .seconds(2))
            let second = lines.all.dropFirst(first.count)
            #expect(second.first?.text.contains("reset=POWERON") == true)
            let secondBoot = try #require(second.first?.boot)
            #expect(secondBoot != firstBoot)
            #expect(second.allSatisfy { $0.boot == secondBoot })
        }
    }

    @Test("a run reset boots with EXT; a bootloader reset waits for download without advertising")
    func resets() async throws {
        try await Self.withBench { bench in
            let board = bench.boards[0]
            let model = bench.virtualBoards[0]
            let lines = Lines()
            board.console?.attach { entry in lines.entries.withLock { $0.append(entry) } }
            try await board.power?.on()
            try await bench.clock.sleep(for: .seconds(2))
            #expect(model.advertising != nil)
            try await board.reset?.reset(.bootloader)
            try await bench.clock.sleep(for: .seconds(2))
            #expect(
                lines.texts.suffix(2) == [
                    "rst:0x1 (POWERON_RESET),boot:0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))",
                    "waiting for download",
                ])
            #expect(model.advertising == nil)
            #expect(model.inBootloader)
            try await board.reset?.reset(.run)
            try await bench.clock.sleep(for: .seconds(2))
            #expect(lines.texts.contains { $0.contains("reset=EXT") })
            #expect(model.advertising != nil)
            #expect(bench.boards[1].reset == nil)
        }
    }

    @Test("a reset the wiring cannot do is refused with what the board has")
    func unsupportedReset() async throws {
        let configuration = VirtualBenchConfiguration(
            seed: 1, boards: [.init(id: "esp-01", profile: .espPoint, resets: [.run])])
        let error = try await VirtualBenchLauncher(configuration).withBench { bench in
            do {
                try await bench.boards[0].reset?.reset(.bootloader)
                return BenchError?.none
            } catch let error as BenchError { return error } catch { return nil }
        }.value
        #expect(error?.code == .unsupported)
        #expect(error?.message == "board esp-01 has no bootloader reset wiring (it has [run])")
    }

    @Test("a line typed on the console reaches the firmware after its time on the wire")
    func typing() async throws {
        try await Self.withBench { bench in
            let board = bench.boards[1]
            let lines = Lines()
            board.console?.attach { entry in lines.entries.withLock { $0.append(entry) } }
            try await board.power?.on()
            try await bench.clock.sleep(for: .seconds(2))
            let typed = bench.clock.now
            try await board.console?.send("status")
            let reply = try #require(lines.all.last)
            #expect(reply.text.contains("I/SYS: status fw=1.0.0"))
            // Seven characters at 115200 8N1.
            #expect(typed.duration(to: reply.at) == .microseconds(7 * 10.0 / 115_200 * 1e6))
        }
    }

    @Test("the radio captures what a host would log, as H4 packets tagged with the peer")
    func capture() async throws {
        final class Packets: CaptureSink {
            let packets = Mutex<[(DeviceAddress?, HCI.H4Packet, HCI.Direction)]>([])
            func record(
                radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant
            ) {
                packets.withLock { $0.append((peer, packet, direction)) }
            }
        }
        let sink = Packets()
        let address = try await Self.withBench { bench in
            bench.radios[0].capture(into: sink)
            try await bench.boards[1].power?.on()
            try await bench.clock.sleep(for: .seconds(2))
            let address = bench.virtualBoards[1].address
            let connection = try await bench.radios[0].central.connect(to: address, timeout: .seconds(5))
            _ = try await connection.exchangeMTU(preferred: 247)
            await connection.disconnect()
            return address
        }
        let packets = sink.packets.withLock { $0 }
        #expect(packets.allSatisfy { $0.0 == address })
        let first = try #require(packets.first)
        #expect(first.2 == .controllerToHost)
        let complete = try HCI.LEConnectionComplete(event: try HCI.EventPacket(decoding: first.1.body))
        #expect(complete.peerAddress == address)
        let request = try HCI.ACLDataPacket(decoding: packets[1].1.body)
        #expect(packets[1].2 == .hostToController)
        #expect(request.data == [3, 0, 4, 0, 0x02, 0xF7, 0x00])
        let last = try #require(packets.last)
        let down = try HCI.DisconnectionComplete(event: try HCI.EventPacket(decoding: last.1.body))
        #expect(down.reason == .localHostTerminated)
    }
}
