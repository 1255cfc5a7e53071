import BLECore
import BenchCore
import Foundation
import Orchestrator
import Radios

/// Opens a bench whose radios are the kernel's own Bluetooth stack (`radio: {kind: bluez, adapter: hci0}`),
/// beside bluetoothd: one ``BlueZCentral`` per adapter, the boards found on the air by their `match`. Everything
/// runs on the wall clock; the radios' links are closed and their mgmt sockets released before ``withBench(_:)``
/// returns. The adapters stay powered, as bluetoothd may be using them. An adapter that fails under the run (removed,
/// switched off by another program) is a fault of its radio in the bench's health: the run stops with an
/// infrastructure error, and no board is blamed.
struct BlueZBenchLauncher: BenchLauncher {
    let rig: RigConfig
    /// Opens one adapter; tests inject fake system calls.
    var openAdapter: @Sendable (UInt16, any RigClock) async throws(HCITransportError) -> BlueZCentral = {
        adapter, clock in
        try await BlueZCentral.open(adapter: adapter, clock: clock)
    }

    /// The most links an adapter holds when the rig does not say: what cheap USB dongles manage.
    static let defaultMaxLinks = 4

    var summary: String {
        rig.radios.map { radio in
            if case .bluez(let adapter) = radio.kind { "bluez \(adapter)" } else { radio.kindName }
        }.joined(separator: ", ")
    }

    func withBench<T: Sendable>(
        _ body: @escaping @Sendable (any Bench) async throws -> T
    ) async throws -> BenchOutcome<T> {
        let clock = WallClock()
        let health = BenchHealth()
        let watch = FaultWatch(health: health, clock: clock)
        let unixTimeAtOrigin = Duration.nanoseconds(Int64(Date().timeIntervalSince1970 * 1e9))
        var radios: [BlueZRadio] = []
        do {
            for radio in rig.radios {
                let opened = try await open(radio, clock: clock)
                let part = "radio '\(radio.id)' (\(opened.kind))"
                opened.bluez.whenAdapterFails { why in watch.report(part: part, cause: why) }
                radios.append(opened)
            }
            // Real boards: serial consoles, reset lines and hub ports from BoardControl where the rig wires them.
            let hardware = try HardwareBoards.open(rig, clock: clock)
            defer { hardware.close() }
            let bench = WallClockBench(
                clock: clock, unixTimeAtOrigin: unixTimeAtOrigin, radios: radios, boards: hardware.boards,
                health: health)
            let value = try await body(bench)
            watch.stop()
            let work = await close(radios)
            return BenchOutcome(value: value, work: work)
        } catch {
            watch.stop()
            _ = await close(radios)
            throw error
        }
    }

    /// Closes every radio; returns the ATT PDUs they carried.
    private func close(_ radios: [BlueZRadio]) async -> Int {
        var pdus = 0
        for radio in radios {
            pdus += radio.counters.filter { $0.metric.hasPrefix("bluez.att_pdus") }.reduce(0) { $0 + Int($1.value) }
            await radio.bluez.close()
        }
        return pdus
    }

    private func open(_ radio: RadioConfig, clock: WallClock) async throws(BenchError) -> BlueZRadio {
        let place = "radio '\(radio.id)' (\(radio.location.lineAndColumn))"
        guard case .bluez(let name) = radio.kind, let adapter = UInt16(name.dropFirst(3)) else {
            throw BenchError(
                .unsupported,
                "\(place): a rig with a bluez radio has only bluez radios; this one is '\(radio.kindName)'")
        }
        do {
            let central = try await openAdapter(adapter, clock)
            return BlueZRadio(id: radio.id, central: central, maxLinks: radio.maxLinks ?? Self.defaultMaxLinks)
        } catch {
            throw BenchError(HCIBenchLauncher.code(error), "\(place): \(error)")
        }
    }
}
