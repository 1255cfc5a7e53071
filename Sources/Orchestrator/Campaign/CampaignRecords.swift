import BLECore
import Foundation
import Reports
import Synchronization
import VirtualFarm

/// The btsnoop capture of each board, built from the virtual central's traffic as the central's host would log
/// it: LE Connection Complete, every ATT PDU in both directions, Disconnection Complete.
final class CaptureStore: Sendable {
    private struct State {
        var boards: [DeviceAddress: String] = [:]
        var bytes: [String: [UInt8]] = [:]
    }

    private let writer: BTSnoop.Writer
    private let state = Mutex(State())

    init(unixTimeAtOrigin: Duration) {
        writer = BTSnoop.Writer(unixTimeAtOrigin: unixTimeAtOrigin)
    }

    func register(_ address: DeviceAddress, as board: String) {
        state.withLock {
            $0.boards[address] = board
            $0.bytes[board] = writer.header
        }
    }

    func record(_ traffic: CentralTraffic) {
        let (peer, bytes): (DeviceAddress, [UInt8])
        switch traffic {
        case let .linkUp(address, handle, parameters, at):
            let event = HCI.LEConnectionComplete(
                handle: handle, peerAddress: address,
                connectionInterval: UInt16((parameters.connectionInterval.milliseconds / 1.25).rounded()),
                peripheralLatency: UInt16(parameters.peripheralLatency),
                supervisionTimeout: UInt16(parameters.supervisionTimeout.milliseconds / 10))
            (peer, bytes) = (address, writer.connectionComplete(event, at: at))
        case let .att(address, handle, pdu, outbound, at):
            (peer, bytes) = (
                address,
                writer.attPDU(
                    pdu, handle: handle, direction: outbound ? .hostToController : .controllerToHost, at: at)
            )
        case let .linkDown(address, handle, reason, at):
            (peer, bytes) = (address, writer.disconnectionComplete(.init(handle: handle, reason: reason), at: at))
        }
        state.withLock { state in
            guard let board = state.boards[peer] else { return }
            state.bytes[board, default: writer.header] += bytes
        }
    }

    func bytes(for board: String) -> [UInt8] { state.withLock { $0.bytes[board] ?? writer.header } }
}

/// Each board's serial console, one line per event, stamped with rig time in seconds.
final class ConsoleStore: Sendable {
    private let lines = Mutex<[String: [String]]>([:])

    func append(_ board: String, at instant: RigInstant, line: String) {
        let stamp = String(format: "[%12.6f] ", instant.sinceOrigin.seconds)
        lines.withLock { $0[board, default: []].append(stamp + line) }
    }

    func text(for board: String) -> String {
        lines.withLock { ($0[board] ?? []).map { $0 + "\n" }.joined() }
    }
}

/// The line the CLI prints for an event, if it prints one.
struct ProgressLine {
    let text: String

    init?(_ event: RunEvent) {
        switch event {
        case let .runStarted(run):
            text =
                "run \(run.runID): rig \(run.rig) on the \(run.radio) radio, seed \(run.seed.map(String.init) ?? "-")"
        case let .transition(change):
            text = "[\(change.board)] \(change.from) → \(change.to) (\(change.reason)) at \(change.at)"
        case let .testFinished(test):
            let verdict: String =
                switch test.outcome {
                case .passed: "passed"
                case let .failed(message, _): "FAILED: \(message)"
                case let .error(message, _): "ERROR: \(message)"
                case let .interrupted(reason): "INTERRUPTED: \(reason)"
                case let .skipped(reason): "skipped: \(reason)"
                }
            let numbers = test.measurements.filter { [.p50, .value].contains($0.statistic) }.prefix(2)
                .map { "\($0.metric) \($0.reading)" }
            text =
                "[\(test.board)] \(test.suite) / \(test.test): \(verdict)"
                + (numbers.isEmpty ? "" : " (" + numbers.joined(separator: ", ") + ")")
        default:
            return nil
        }
    }
}
