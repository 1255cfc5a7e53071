import BLECore
import Synchronization

/// Values pushed by a peripheral on one characteristic, buffered until the stack asks for them. Unlike an
/// `AsyncStream`, a reader that gives up (a timeout, a cancelled task) leaves the inbox intact for the next one.
public final class Inbox: Sendable {
    private struct State {
        var buffer: [GATT.ValueEvent] = []
        var head = 0
        var waiter: (id: UInt64, continuation: CheckedContinuation<GATT.ValueEvent?, Never>)?
        var nextWaiterID: UInt64 = 0
        var finished = false
        var received = 0
    }

    private let state = Mutex(State())
    public let characteristic: BluetoothUUID

    public init(characteristic: BluetoothUUID) { self.characteristic = characteristic }

    /// Values received so far, read or not.
    public var receivedCount: Int { state.withLock { $0.received } }

    /// Values waiting to be read.
    public var pendingCount: Int { state.withLock { $0.buffer.count - $0.head } }

    public func put(_ event: GATT.ValueEvent) {
        let waiter = state.withLock { s -> CheckedContinuation<GATT.ValueEvent?, Never>? in
            s.received += 1
            if let waiter = s.waiter {
                s.waiter = nil
                return waiter.continuation
            }
            s.buffer.append(event)
            return nil
        }
        waiter?.resume(returning: event)
    }

    /// No more values will come (the link went down or the subscription ended).
    public func finish() {
        let waiter = state.withLock { s -> CheckedContinuation<GATT.ValueEvent?, Never>? in
            s.finished = true
            defer { s.waiter = nil }
            return s.waiter?.continuation
        }
        waiter?.resume(returning: nil)
    }

    /// Takes every buffered value without waiting.
    public func drain() -> [GATT.ValueEvent] {
        state.withLock { s in
            defer {
                s.buffer.removeAll(keepingCapacity: true)
                s.head = 0
            }
            return Array(s.buffer[s.head...])
        }
    }

    /// The next value; nil once the inbox is finished and empty, or when the waiting task is cancelled.
    /// One reader at a time.
    public func next() async -> GATT.ValueEvent? {
        let id = state.withLock { s -> UInt64 in
            s.nextWaiterID += 1
            return s.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<GATT.ValueEvent?, Never>) in
                let immediate = state.withLock { s -> GATT.ValueEvent?? in
                    if s.head < s.buffer.count {
                        defer {
                            s.head += 1
                            if s.head == s.buffer.count {
                                s.buffer.removeAll(keepingCapacity: true)
                                s.head = 0
                            }
                        }
                        return .some(s.buffer[s.head])
                    }
                    if s.finished || Task.isCancelled { return .some(nil) }
                    precondition(s.waiter == nil, "Inbox for \(characteristic) has two readers")
                    s.waiter = (id, continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<GATT.ValueEvent?, Never>? in
                guard let waiter = s.waiter, waiter.id == id else { return nil }
                s.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The next value within `timeout` on `clock`.
    public func next(within timeout: Duration, clock: any RigClock, waitingFor what: String) async throws(SessionError) -> GATT.ValueEvent {
        let result = try await withTimeout(timeout, clock: clock, waitingFor: what) { await self.next() }
        guard let result else { throw .linkClosed(waitingFor: what) }
        return result
    }
}
