import BLECore
import Glibc
import Synchronization

/// The mgmt control socket as a small actor-free shell: commands out, each answered by its Command Complete or
/// Command Status; every other event to the observers. Events arrive on the channel's thread and observers run
/// there, synchronously, in order.
final class MgmtChannel: Sendable {
    let channel: SeqpacketChannel
    let clock: any RigClock
    private let state = Mutex(State())

    private struct State {
        /// Commands waiting for their answer, oldest first, by opcode and index.
        var waiting: [Key: [(id: Int, continuation: CheckedContinuation<Answer, Never>)]] = [:]
        var observers: [Int: @Sendable (UInt16, Mgmt.Event) -> Void] = [:]
        var next = 0
        var closed: String?
        /// ``close()`` was called: the socket ending is not a failure.
        var closing = false
        var failureHandlers: [@Sendable (String) -> Void] = []
    }

    private struct Key: Hashable {
        var opcode: UInt16
        var index: UInt16
    }

    private enum Answer {
        case complete(Mgmt.CommandComplete)
        case status(Mgmt.CommandStatus)
        case failed(MgmtCommandError.Failure)
    }

    /// How long a command may take: Set Powered waits for the controller's own initialisation.
    static let commandTimeout: Duration = .seconds(10)

    init(channel: SeqpacketChannel, clock: any RigClock) {
        self.channel = channel
        self.clock = clock
        channel.start(
            receive: { [weak self] bytes in self?.receive(bytes) },
            ended: { [weak self] error, byPeer in
                self?.ended(error.map { "the mgmt socket failed: \($0)" } ?? "the kernel closed the mgmt socket")
            })
    }

    /// Calls `handler` with why when the socket ends by itself (a failed read, the kernel closing it), not when
    /// ``close()`` closes it.
    func whenFails(_ handler: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.failureHandlers.append(handler) }
    }

    /// Calls `observer` with every event that is not a command's answer, with its controller index, from now on.
    @discardableResult
    func observe(_ observer: @escaping @Sendable (UInt16, Mgmt.Event) -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    func stopObserving(_ id: Int) { _ = state.withLock { $0.observers.removeValue(forKey: id) } }

    /// Sends `command` to controller `index` and returns its reply; throws the status of a refusal, a malformed
    /// reply, a socket failure or a timeout.
    func send<C: MgmtCommand>(_ command: C, index: UInt16) async throws(MgmtCommandError) -> C.Reply {
        let key = Key(opcode: C.opcode.rawValue, index: index)
        let packet = command.packet(index: index).encoded
        let timeout = Self.commandTimeout
        let answer: Answer = await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                if state.closed != nil { return nil }
                state.next += 1
                state.waiting[key, default: []].append((state.next, continuation))
                return state.next
            }
            guard let id else {
                let why = state.withLock { $0.closed } ?? "closed"
                return continuation.resume(returning: .failed(.socket(why)))
            }
            do throws(Errno) {
                try channel.send(packet)
            } catch {
                take(key, id)?.resume(returning: .failed(.socket("writing \(C.opcode) failed: \(error)")))
                return
            }
            Task { [weak self, clock] in
                try? await clock.sleep(for: timeout)
                self?.take(key, id)?.resume(returning: .failed(.timeout(timeout)))
            }
        }
        let failure: MgmtCommandError.Failure
        switch answer {
        case let .complete(complete) where complete.status == .success:
            do { return try C.Reply(parameters: complete.returned) } catch {
                failure = .malformed("\(error)")
            }
        case let .complete(complete): failure = .status(complete.status)
        case let .status(status): failure = .status(status.status)
        case let .failed(why): failure = why
        }
        throw MgmtCommandError(opcode: C.opcode, index: index, failure: failure)
    }

    func close() {
        state.withLock { $0.closing = true }
        channel.close()
        fail("the mgmt socket was closed")
    }

    private func ended(_ why: String) {
        let handlers = state.withLock { state in state.closing ? [] : state.failureHandlers }
        fail(why)
        for handler in handlers { handler(why) }
    }

    private func take(_ key: Key, _ id: Int) -> CheckedContinuation<Answer, Never>? {
        state.withLock { state in
            guard let position = state.waiting[key]?.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting[key]!.remove(at: position).continuation
        }
    }

    private func receive(_ bytes: [UInt8]) {
        guard let packet = try? Mgmt.Packet(decoding: bytes), let event = try? Mgmt.Event(decoding: packet) else {
            return  // not mgmt: nothing a client can do with it
        }
        let answer: (Key, Answer)? =
            switch event {
            case let .commandComplete(complete):
                (Key(opcode: complete.opcode.rawValue, index: packet.index), .complete(complete))
            case let .commandStatus(status):
                (Key(opcode: status.opcode.rawValue, index: packet.index), .status(status))
            default: nil
            }
        if case let (key, answer)? = answer {
            let waiter = state.withLock { state in
                state.waiting[key]?.isEmpty == false ? state.waiting[key]!.removeFirst().continuation : nil
            }
            waiter?.resume(returning: answer)
            return
        }
        let observers = state.withLock { state in state.observers.keys.sorted().compactMap { state.observers[$0] } }
        for observer in observers { observer(packet.index, event) }
    }

    private func fail(_ why: String) {
        let waiters = state.withLock { state in
            if state.closed == nil { state.closed = why }
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap { $0.map(\.continuation) }
        }
        for waiter in waiters { waiter.resume(returning: .failed(.socket(why))) }
    }
}

/// A mgmt command that did not succeed.
public struct MgmtCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Failure: Hashable, Sendable {
        /// The kernel answered with this status.
        case status(Mgmt.Status)
        /// The reply's parameters do not decode.
        case malformed(String)
        /// The socket failed or was closed.
        case socket(String)
        /// No answer within this time.
        case timeout(Duration)
    }

    public var opcode: Mgmt.Opcode
    public var index: UInt16
    public var failure: Failure

    /// Not inlined: inlined into an async function that throws another typed error, its borrow of the error
    /// crashes the release compiler (Swift 6.3.1, "Found outside of lifetime use" in CopyPropagation).
    public var status: Mgmt.Status? {
        @inline(never) get { if case let .status(status) = failure { status } else { nil } }
    }

    public var description: String {
        let what = "mgmt \(opcode) on \(index == Mgmt.noIndex ? "no adapter" : "hci\(index)")"
        switch failure {
        case let .status(status): return "\(what) failed: \(status)"
        case let .malformed(why): return "\(what): malformed reply: \(why)"
        case let .socket(why): return "\(what): \(why)"
        case let .timeout(after): return "\(what): no answer within \(after)"
        }
    }
}
