import BLECore
import BenchCore

/// A link's ATT traffic, for the bearers of both sides, and the stack's counters.
extension HCIStack {
    /// Queues an ATT PDU on a link, suspending while the link's queue is full. Throws once the link is down.
    func sendATT(_ pdu: [UInt8], on handle: UInt16, immediately: Bool = false) async throws(GATTError) {
        enum Outcome {
            case sent(Performed)
            case down
            case wait(key: Int)
        }
        while true {
            let now = clock.now
            let outcome = state.withLock { state -> Outcome in
                guard !state.closed, state.host.links[handle] != nil else { return .down }
                guard immediately || state.host.canQueue(on: handle) else {
                    state.nextKey += 1
                    return .wait(key: state.nextKey)
                }
                let actions = state.host.sendATT(pdu, on: handle, at: now)
                return .sent(perform(actions, &state, at: now))
            }
            switch outcome {
            case let .sent(performed):
                finish(performed)
                return
            case .down:
                throw .disconnected(.unknownConnectionIdentifier)
            case let .wait(key):
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        guard !state.closed, state.host.links[handle] != nil else { return true }
                        if state.host.canQueue(on: handle) { return true }
                        state.sendWaiters[handle, default: [:]][key] = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Queues a PDU without waiting for room (answers to the peer: one per received PDU).
    func sendImmediately(_ pdu: [UInt8], on handle: UInt16) {
        run { host, now in host.sendATT(pdu, on: handle, at: now) }
    }

    func disconnect(_ handle: UInt16) {
        run { host, now in host.disconnect(handle, reason: .remoteUserTerminated, at: now) }
    }

    /// Numbers about the stack's work, each with its definition.
    public var counters: [RadioCounter] {
        let counters = state.withLock { $0.counters }
        return [
            RadioCounter(
                metric: "hci.packets_in", value: Double(counters.packetsIn),
                definition: "HCI packets from the controller (events and ACL data)"),
            RadioCounter(
                metric: "hci.packets_out", value: Double(counters.packetsOut),
                definition: "HCI packets to the controller (commands and ACL data)"),
            RadioCounter(
                metric: "hci.acl_bytes_out", value: Double(counters.aclBytesOut),
                definition: "ACL payload bytes sent (L2CAP headers included)"),
            RadioCounter(
                metric: "hci.acl_bytes_in", value: Double(counters.aclBytesIn),
                definition: "ACL payload bytes received (L2CAP headers included)"),
            RadioCounter(
                metric: "hci.warnings", value: Double(counters.warnings),
                definition: "malformed or unexpected packets the host dropped and carried on"),
        ]
    }
}

/// Whoever owns a link's ATT traffic: a GATT client connection on the central side, a board model's bearer on
/// the peripheral side. Called after the stack's lock is released, from the transport's reader thread.
public protocol HCILinkHandler: Sendable {
    func receive(_ pdu: [UInt8])
    func linkDown(_ reason: HCIErrorCode)
    func parametersChanged(_ link: HCIHost.Link)
}

extension HCILinkHandler {
    public func parametersChanged(_ link: HCIHost.Link) {}
}

/// Why the stack could not start, or stopped.
public struct HCIStackError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
