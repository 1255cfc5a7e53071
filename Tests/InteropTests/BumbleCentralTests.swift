import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import Radios
import Testing
import VirtualFarm

@testable import Benches

extension Interop {
    /// The reverse seat: Bumble's reference central (`share/blerig/peers/central.py`) against blerig's peripheral side,
    /// an esp-point board model served on a rootcanal controller of its own, checked against the profile in
    /// `docs/board-contract.md` (esp-point) rather than against blerig's own constants.
    @Suite("Bumble's central against blerig's esp-point")
    struct BumbleCentral {
        /// The board contract's custom base `e5b1XXXX-7c3a-4f0e-9d2b-5a1c3e7f9b20`, written out.
        static func custom(_ short: String) -> String { "e5b1\(short)-7c3a-4f0e-9d2b-5a1c3e7f9b20" }

        /// The esp-point table of docs/board-contract.md: service, then each characteristic with its properties as
        /// Bumble names them.
        static let table: [(service: String, characteristics: [(uuid: String, properties: Set<String>)])] = [
            ("1801", [("2a05", ["INDICATE"]), ("2b29", ["READ", "WRITE"]), ("2b2a", ["READ"])]),
            ("180a", [("2a29", ["READ"]), ("2a24", ["READ"]), ("2a25", ["READ"]), ("2a26", ["READ"])]),
            ("180f", [("2a19", ["READ", "NOTIFY"])]),
            (
                custom("0100"),
                [
                    (custom("0101"), ["READ", "NOTIFY"]), (custom("0102"), ["WRITE", "INDICATE"]),
                    (custom("0103"), ["NOTIFY"]),
                ]
            ),
            (
                custom("0200"),
                [
                    (custom("0201"), ["WRITE"]), (custom("0202"), ["READ", "NOTIFY"]),
                    (custom("0203"), ["READ", "WRITE"]),
                ]
            ),
            (custom("0300"), [(custom("0301"), ["WRITE", "NOTIFY"]), (custom("0302"), ["WRITE_WITHOUT_RESPONSE"])]),
        ]

        @Test(
            "discovers the esp-point's table, reads its values, pairs, authenticates, gets notifications and indications, and sees it reboot"
        )
        func espPointThroughBumble() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let address = try #require(DeviceAddress("24:0A:C4:12:1A:2B"))
                let board = VirtualBenchConfiguration.Board(
                    id: "esp-01", profile: .espPoint, settings: VirtualBoardSettings(address: address))
                let console = Locked<[String]>([])
                let controller = try HCITransportSpec.parse(rootcanal.hciSpec)
                let outcome = try await ServedFarm.run(
                    boards: [board], seed: 11, controller: controller, clock: WallClock()
                ) { (boards: [BenchBoard]) async throws -> Outcome in
                    // No expectations in here: this runs in a task of its own, outside the test's.
                    let served = boards[0]
                    guard let power = served.power, let boardConsole = served.console else {
                        throw TestFailure("a served board has a power switch and a console")
                    }
                    boardConsole.attach { entry in console.withLock { $0.append(entry.text) } }
                    try await power.on()
                    let central = try await scope.peer(
                        .central,
                        ["--hci", rootcanal.hciSpec, "--target", "ESP-Point-1a2b", "--listen", "3"] + Self.actions)
                    let line = try await central.line("RESULT", timeout: .seconds(30))
                    // The central is done once the link ends; the board's reboot finishes on its own clock after
                    // that. Power stays on until it printed its BOOT line (up to 5 s), or the check below has none.
                    let clock = ContinuousClock()
                    let rebooted = clock.now.advanced(by: .seconds(5))
                    while clock.now < rebooted,
                        !console.withLock({ $0.contains { $0.hasPrefix("BOOT ") && $0.contains("reset=SW") } })
                    {
                        try await clock.sleep(for: .milliseconds(20))
                    }
                    try await power.off()
                    return Outcome(
                        airAddress: served.match.address, result: try central.decode(CentralResult.self, from: line))
                }
                let result = outcome.result

                // Found by the name in its scan response, at its air address: the model's, made random static.
                #expect(outcome.airAddress == DeviceAddress(0xE4_0A_C4_12_1A_2B, kind: .random))
                #expect(result.target.name == "ESP-Point-1a2b")
                #expect(result.target.address == "E4:0A:C4:12:1A:2B")
                #expect(result.mtu == 247)

                // Every service and characteristic of the table, with the table's properties (GAP may come first),
                // the Generic Attribute service first of the contract's.
                let gatt = result.services.first { $0.uuid == "1801" }
                #expect(gatt?.characteristics.map(\.uuid) == ["2a05", "2b29", "2b2a"])
                // The Database Hash the board serves is the one Bumble computes over the table it discovered.
                let hash = try #require(value(result, "2b2a"))
                #expect(hash.count == 16, "the Database Hash is an AES-CMAC")
                #expect(hash.hexString == result.databaseHashBumble, "served vs Bumble's own computation")
                #expect(value(result, "2b29") == [0], "no client features before the client writes them")
                let table = Self.table
                let services = result.services.filter { $0.uuid != "1800" }
                #expect(services.map(\.uuid) == table.map(\.service))
                for (service, expected) in zip(services, table) {
                    #expect(service.characteristics.map(\.uuid) == expected.characteristics.map(\.uuid))
                    for (characteristic, wanted) in zip(service.characteristics, expected.characteristics) {
                        #expect(Set(characteristic.properties) == wanted.properties, "\(characteristic.uuid)")
                        let pushes = !wanted.properties.isDisjoint(with: ["NOTIFY", "INDICATE"])
                        let cccds = characteristic.descriptors.filter { $0.uuid == "2902" }
                        #expect(
                            cccds.count == (pushes ? 1 : 0), "\(characteristic.uuid): \(characteristic.descriptors)")
                        #expect(
                            characteristic.error == nil,
                            "reading \(characteristic.uuid) failed: \(characteristic.error ?? 0)")
                    }
                }

                // Device Information and the readable values.
                #expect(text(result, "2a29")?.isEmpty == false)
                #expect(text(result, "2a24") == "esp-point")
                #expect(text(result, "2a25") == "240AC4121A2B", "the serial number is the board's MAC without colons")
                #expect(text(result, "2a26") == "1.4.2")
                let battery = try #require(value(result, "2a19"))
                #expect(battery.count == 1 && (1...100).contains(battery[0]))
                let reading = try #require(value(result, Self.custom("0101")))
                #expect(reading.count == 14)
                #expect(u32(reading, 0) == 0, "before its first sample the board reads with seq 0")
                #expect(u32(reading, 4) >= 1_767_225_600, "the RTC counts from 2026-01-01 after power-on")
                #expect(value(result, Self.custom("0202")) == [], "no command answered yet")
                #expect(value(result, Self.custom("0203"))?.count == 16, "a fresh 16-byte challenge")

                // The actions, in order (see `actions`).
                let actions = result.actions
                try #require(actions.count == Self.actions.count / 2)
                #expect(actions[0].error == 0x05, "IDENTIFY before authenticating: Insufficient Authentication")
                #expect(actions[1].error == 0x05, "Log Control STATUS before authenticating")
                for (index, action) in actions.enumerated().dropFirst(2) {
                    #expect(action.error == nil, "action \(index) \(action.op) \(action.uuid ?? "") failed")
                }
                #expect(actions[4].value?.count == 32, "the challenge answered, in hex")
                #expect(actions[8].value == "0200", "Command Status holds SET_INTERVAL's answer")

                // Command Status notified each command that got through: PAIR_BEGIN with its nonce, PAIR_CONFIRM,
                // SET_INTERVAL, REBOOT.
                let statuses = try #require(result.characteristic(BluetoothUUID(Self.custom("0202"))!)?.notifications)
                #expect(statuses.map { $0.prefix(4) } == ["0600", "0700", "0200", "0500"])
                #expect(statuses.first?.count == 36, "PAIR_BEGIN's status carries a 16-byte nonce")
                // Log Control STATUS was indicated: 81, oldest, newest, count, capacity 2048, dropped.
                let logStatus = try #require(
                    result.characteristic(BluetoothUUID(Self.custom("0102"))!)?.notifications?.first
                        .flatMap { [UInt8](hex: $0) })
                #expect(logStatus.count == 21 && logStatus[0] == 0x81)
                #expect(u32(logStatus, 13) == 2048)
                // Reading notified every second once SET_INTERVAL 1 took effect: consecutive sequence numbers.
                let readings = (result.characteristic(BluetoothUUID(Self.custom("0101"))!)?.notifications ?? [])
                    .compactMap { [UInt8](hex: $0) }
                #expect(readings.count >= 2, "\(readings.count) readings in 2.5 s at a 1 s interval")
                #expect(readings.allSatisfy { $0.count == 14 })
                let sequences = readings.map { u32($0, 0) }
                #expect(sequences.first == 1, "the first record of a fresh log is seq 1")
                #expect(sequences == sequences.indices.map { UInt32($0) + (sequences.first ?? 0) })

                // REBOOT: the board restarts, its radio with it, and the link ends from its side.
                #expect(result.disconnectReason == Int(HCIErrorCode.remotePowerOff.rawValue))
                let lines = console.withLock { $0 }
                #expect(lines.contains { $0.hasPrefix("BOOT ") && $0.contains("reset=SW") }, "\(lines)")
            }
        }

        struct Outcome: Sendable {
            var airAddress: DeviceAddress?
            var result: CentralResult
        }

        /// What central.py does after reading and subscribing, in order; `result.actions` has one entry for each.
        static let key = (0..<32).map { UInt8($0 &* 7 &+ 1) }
        static let actions: [String] = [
            "--write", "\(custom("0201"))=04",  // 0: IDENTIFY, refused: not authenticated
            "--write", "\(custom("0102"))=01",  // 1: Log Control STATUS, refused: not authenticated
            "--write", "\(custom("0201"))=06",  // 2: PAIR_BEGIN (a first boot is in pairing mode)
            "--write", "\(custom("0201"))=07\(hex(key))",  // 3: PAIR_CONFIRM with the key
            "--answer-challenge", "\(custom("0203"))=\(hex(key))",  // 4: Auth: HMAC-SHA256(key, challenge)[0..<16]
            "--write", "\(custom("0102"))=01",  // 5: Log Control STATUS, indicated
            "--write", "\(custom("0201"))=0201000000",  // 6: SET_INTERVAL 1 s
            "--pause", "2.5",  // 7: Reading notifications
            "--read", custom("0202"),  // 8: Command Status
            "--write", "\(custom("0201"))=05",  // 9: REBOOT
        ]

        static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

        private func value(_ result: CentralResult, _ uuid: String) -> [UInt8]? {
            BluetoothUUID(uuid).flatMap { result.characteristic($0)?.value }.flatMap { [UInt8](hex: $0) }
        }

        private func text(_ result: CentralResult, _ uuid: String) -> String? {
            value(result, uuid).map { String(decoding: $0, as: UTF8.self) }
        }

        private func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
            guard bytes.count >= offset + 4 else { return 0 }
            return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
    }
}
