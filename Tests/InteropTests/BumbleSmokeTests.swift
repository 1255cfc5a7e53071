import BLECore
import Foundation
import Testing

extension Interop {
    /// The peer scripts against each other over one rootcanal: proof that the scripts, the profile in
    /// PeerProfile.swift and rootcanal work here, before blerig's own host is put in either seat.
    @Suite("Bumble central against Bumble peripheral")
    struct BumbleSmoke {
        @Test("the central discovers, reads, long-writes, gets notifications and indications, and is disconnected")
        func centralExercisesPeripheral() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                let peripheral = try await scope.peer(
                    .peripheral, ["--hci", rootcanal.hciSpec, "--name", "Interop-Smoke"])
                let ready = try peripheral.decode(PeripheralReady.self, from: peripheral.ready)
                #expect(BluetoothUUID(ready.service) == PeerProfile.service)

                let longWrite = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
                let sunk: [[UInt8]] = [[1, 2, 3], Array(repeating: 0xAA, count: 100)]
                let central = try await scope.peer(
                    .central,
                    ["--hci", rootcanal.hciSpec, "--target", "Interop-Smoke", "--listen", "3"]
                        + write(PeerProfile.echo, longWrite) + ["--read", "\(PeerProfile.echo)"]
                        + sunk.flatMap { write(PeerProfile.sink, $0, withResponse: false) }
                        + write(PeerProfile.command, PeerProfile.Command.notify(count: 5, size: 20))
                        + write(PeerProfile.command, PeerProfile.Command.indicate(count: 2, size: 8))
                        + write(PeerProfile.command, [0x7F]) + write(PeerProfile.readOnly, [1])
                        + ["--read", "\(PeerProfile.sinkStatus)", "--read", "\(PeerProfile.counters)"]
                        + write(PeerProfile.command, PeerProfile.Command.disconnect))
                let result = try central.decode(
                    CentralResult.self, from: try await central.line("RESULT", timeout: .seconds(30)))

                #expect(result.target.name == "Interop-Smoke")
                #expect(result.target.address == ready.address)
                #expect(result.mtu == 247)
                let service = try #require(result.services.first { BluetoothUUID($0.uuid) == PeerProfile.service })
                #expect(service.characteristics.count == 12)
                for characteristic in service.characteristics {
                    let role = ready.handles.first { $0.value == characteristic.handle }?.key
                    #expect(
                        role != nil, "characteristic \(characteristic.uuid) at \(characteristic.handle) is not in READY"
                    )
                }

                // Reads: short, long (Read Blob at MTU 247), an application error; nothing unreadable was read.
                #expect(hex(result.characteristic(PeerProfile.shortRead)?.value) == PeerProfile.shortReadValue)
                #expect(hex(result.characteristic(PeerProfile.longRead)?.value) == PeerProfile.longReadValue)
                #expect(hex(result.characteristic(PeerProfile.readOnly)?.value) == PeerProfile.readOnlyValue)
                #expect(
                    result.characteristic(PeerProfile.readError)?.error == Int(PeerProfile.ATTError.readError.rawValue))
                for unreadable in [PeerProfile.writeOnly, PeerProfile.sink, PeerProfile.command] {
                    let characteristic = result.characteristic(unreadable)
                    #expect(characteristic?.value == nil && characteristic?.error == nil)
                }
                let descriptors = result.characteristic(PeerProfile.shortRead)?.descriptors ?? []
                #expect(descriptors.contains { BluetoothUUID($0.uuid) == BluetoothUUID(0x2901) })

                // The writes, in order: long write and read back, two commands without response, two pushes,
                // an unknown opcode and a write to the read-only characteristic refused, then the counters.
                let actions = result.actions
                #expect(actions.count == 11)
                #expect(hex(actions[1].value) == longWrite)
                #expect(actions[6].error == Int(PeerProfile.ATTError.unknownOpcode.rawValue))
                #expect(actions[7].error == 0x03)  // Write Not Permitted
                let sink = try #require(PeerProfile.SinkStatus(hex(actions[8].value)))
                #expect(sink.count == 2 && sink.bytes == 103)
                #expect(sink.crc32 == crc32(sunk.flatMap { $0 }))
                let counters = try #require(PeerProfile.Counters(hex(actions[9].value)))
                #expect(counters.echoWrites == 1)
                #expect(counters.prepareWrites >= 2, "a 300-byte write at MTU 247 needs Prepare Write")
                #expect(counters.refusedReads == 0)
                #expect(counters.refusedWrites == 1)

                let notified = result.characteristic(PeerProfile.notifySource)
                #expect(
                    notified?.notifications?.map(hex)
                        == (0..<5).map { PeerProfile.notification(sequence: $0, size: 20) })
                let indicated = result.characteristic(PeerProfile.indicateSource)
                #expect(
                    indicated?.notifications?.map(hex)
                        == (0..<2).map { PeerProfile.notification(sequence: $0, size: 8) })

                #expect(result.disconnectReason == 0x13)
                let seen = try await peripheral.event { $0.event == "disconnected" }
                #expect(seen.reason == 0x16, "the peripheral ended it itself: terminated by local host")
            }
        }

        @Test("stream mode sends notifications back to back, in order, and ends with the end-of-stream mark")
        func streamMode() async throws {
            try await withInteropScope { scope in
                let rootcanal = try await scope.rootcanal()
                _ = try await scope.peer(.peripheral, ["--hci", rootcanal.hciSpec, "--name", "Interop-Stream"])
                let central = try await scope.peer(
                    .central,
                    ["--hci", rootcanal.hciSpec, "--target", "Interop-Stream", "--listen", "1.5", "--keep", "100000"]
                        + write(PeerProfile.command, PeerProfile.Command.stream(milliseconds: 300, size: 200)))
                let result = try central.decode(
                    CentralResult.self, from: try await central.line("RESULT", timeout: .seconds(30)))
                let values = try #require(result.characteristic(PeerProfile.notifySource)?.notifications).map(hex)
                let sequences = values.map { $0.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
                #expect(sequences.count > 10, "only \(sequences.count) notifications in 300 ms")
                #expect(sequences.last == PeerProfile.endOfStream)
                #expect(Array(sequences.dropLast()) == (0..<UInt32(sequences.count - 1)).map { $0 })
                #expect(values.allSatisfy { $0.count == 200 })
            }
        }

        private func write(_ uuid: BluetoothUUID, _ value: [UInt8], withResponse: Bool = true) -> [String] {
            [
                withResponse ? "--write" : "--write-command",
                "\(uuid)=\(value.map { String(format: "%02x", $0) }.joined())",
            ]
        }

        private func hex(_ text: String?) -> [UInt8] {
            guard let text else { return [] }
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
                bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
                index = next
            }
            return bytes
        }
    }
}
