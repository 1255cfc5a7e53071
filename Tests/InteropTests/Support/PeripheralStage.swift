import BLECore
import Foundation
import Radios
import Testing

/// One rootcanal with the Bumble peripheral advertising on a controller of its own and blerig's host on another:
/// the stage of every test of blerig's central.
struct PeripheralStage {
    let rootcanal: RootcanalProcess
    let peripheral: BumblePeer
    let ready: PeripheralReady
    /// The peripheral's random static address, from its READY line.
    let address: DeviceAddress
    let host: BlerigHost

    var central: HCICentral { host.central }

    /// The value handle of a characteristic, by its name in peripheral.py's READY line.
    func handle(_ role: String) throws -> UInt16 {
        guard let handle = ready.handles[role] else { throw TestFailure("READY names no handle \(role): \(ready)") }
        return UInt16(handle)
    }

    static func start(
        in scope: InteropScope, name: String, rootcanal options: RootcanalProcess.Options = .init()
    ) async throws -> PeripheralStage {
        let rootcanal = try await scope.rootcanal(options)
        let peripheral = try await scope.peer(.peripheral, ["--hci", rootcanal.hciSpec, "--name", name])
        let ready = try peripheral.decode(PeripheralReady.self, from: peripheral.ready)
        guard let address = DeviceAddress(ready.address + "/random") else {
            throw TestFailure("peripheral.py's address \(ready.address) is not an address")
        }
        let host = try await scope.blerigHost(on: rootcanal)
        return PeripheralStage(rootcanal: rootcanal, peripheral: peripheral, ready: ready, address: address, host: host)
    }

    /// Connects blerig's central to the peripheral and exchanges MTUs for 247.
    func connect() async throws -> any GATTConnection {
        let connection = try await central.connect(to: address, timeout: .seconds(5))
        let mtu = try await connection.exchangeMTU(preferred: 247)
        guard mtu == 247 else { throw TestFailure("the MTU exchange gave \(mtu), not 247") }
        return connection
    }
}

/// The Interop Test service as blerig's central discovered it.
struct DiscoveredProfile {
    let service: GATT.Service
    let characteristics: [GATT.Characteristic]
    /// Descriptors by the value handle of their characteristic.
    let descriptors: [UInt16: [GATT.Descriptor]]

    static func discover(on connection: any GATTConnection) async throws -> DiscoveredProfile {
        let services = try await connection.discoverPrimaryServices(PeerProfile.service)
        guard services.count == 1, let service = services.first else {
            throw TestFailure("discovery by UUID found \(services) for the Interop Test service")
        }
        let characteristics = try await connection.discoverCharacteristics(of: service)
        var descriptors: [UInt16: [GATT.Descriptor]] = [:]
        for characteristic in characteristics where characteristic.descriptorHandles != nil {
            descriptors[characteristic.valueHandle] = try await connection.discoverDescriptors(of: characteristic)
        }
        return DiscoveredProfile(service: service, characteristics: characteristics, descriptors: descriptors)
    }

    func characteristic(_ uuid: BluetoothUUID) throws -> GATT.Characteristic {
        guard let found = characteristics.first(where: { $0.uuid == uuid }) else {
            throw TestFailure("no characteristic \(uuid) among \(characteristics)")
        }
        return found
    }

    /// The value handle of a characteristic.
    func handle(_ uuid: BluetoothUUID) throws -> UInt16 { try characteristic(uuid).valueHandle }

    /// The Client Characteristic Configuration descriptor of a characteristic.
    func cccd(_ uuid: BluetoothUUID) throws -> UInt16 {
        let value = try handle(uuid)
        guard
            let cccd = descriptors[value]?.first(where: {
                $0.uuid == GATT.AttributeType.clientCharacteristicConfiguration
            })
        else { throw TestFailure("\(uuid) has no CCCD among \(descriptors[value] ?? [])") }
        return cccd.handle
    }
}

extension GATTConnection {
    /// Reads peripheral.py's counters.
    func counters(at handle: UInt16) async throws -> PeerProfile.Counters {
        let value = try await read(handle)
        guard let counters = PeerProfile.Counters(value) else { throw TestFailure("counters read as \(value)") }
        return counters
    }
}

extension AsyncStream<GATT.ValueEvent> {
    /// The first `count` values, or what arrived before `timeout` passed or the stream finished.
    func first(_ count: Int, within timeout: Duration) async -> [GATT.ValueEvent] {
        let collected = Locked<[GATT.ValueEvent]>([])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await value in self {
                    let done = collected.withLock { values in
                        values.append(value)
                        return values.count >= count
                    }
                    if done { return }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        return collected.withLock { $0 }
    }

    /// True when the stream finishes within `timeout`, false when it is still open then.
    func finishes(within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in self {}
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }
}
