import BLECore
import BenchCore
import DeviceProfiles
import Foundation
import Radios
import Synchronization
import VirtualFarm

/// One board model served as a real peer: a ``HostedBoard`` (the virtual farm's firmware, unchanged, in a
/// simulation paced by the wall clock) on a controller of its own, reached over HCI. Its advertising goes to the
/// controller, a central's connection comes back as a bearer, and its power switch, reset lines and console are
/// the bench capabilities of the board.
///
/// The controller is the board's radio chip: cutting the power or resetting the chip closes it (the central's
/// controller sees the link end with 0x15, as it would when a board's radio dies), and booting opens a new one,
/// with the same random static address, so the central finds the board where it was.
final class ServedBoard: Sendable {
    let id: String
    let sim: Simulation
    let radio: ControllerRadio
    let board: HostedBoard
    let clock: any RigClock

    /// Built on the simulation thread.
    init(
        id: String, profile: Profile, address: DeviceAddress, settings: VirtualBoardSettings, sim: Simulation,
        controller: HCITransportSpec, clock: any RigClock
    ) {
        self.id = id
        self.sim = sim
        self.clock = clock
        radio = ControllerRadio(
            spec: controller, address: Self.airAddress(for: address), sim: sim, clock: clock, owner: id)
        board = HostedBoard(profile: profile, id: id, address: address, settings: settings, sim: sim, radio: radio)
        radio.board = SimulationConfinedBoard(board)
    }

    /// The address the board uses on the air: its model's address made a random static one (the two top bits
    /// set), since a host cannot give its controller a public address through standard HCI.
    static func airAddress(for address: DeviceAddress) -> DeviceAddress {
        DeviceAddress(address.value | 0xC000_0000_0000, kind: .random)
    }

    var airAddress: DeviceAddress { radio.address }

    /// Runs `action` on the simulation thread and waits until it ran.
    func onBoard(_ action: @escaping @Sendable (HostedBoard) -> Void) async {
        let board = SimulationConfinedBoard(board)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let posted = sim.post {
                action(board.value)
                continuation.resume()
            }
            if !posted { continuation.resume() }
        }
    }
}

/// The hosted board, carried through `Sendable` closures that run on its simulation's thread only.
struct SimulationConfinedBoard: @unchecked Sendable {
    let value: HostedBoard
    init(_ value: HostedBoard) { self.value = value }
}

/// The board's radio chip: an ``HCIStack`` on a controller of its own, opened when the board is powered and
/// closed when it loses power or is reset. The board calls ``setAdvertising(_:of:)`` on its simulation thread;
/// the stack's reader thread hands connections and PDUs back through ``Simulation/post(_:)``.
final class ControllerRadio: BoardRadio, @unchecked Sendable {
    // @unchecked Sendable: `state` is behind a mutex; `board` is set once on the simulation thread before any
    // use, and only read there.
    let spec: HCITransportSpec
    let address: DeviceAddress
    let sim: Simulation
    let clock: any RigClock
    let owner: String
    var board: SimulationConfinedBoard?
    let state = Mutex(RadioState())

    struct RadioState {
        var stack: HCIStack?
        /// What the board last asked to advertise; applied again when a new controller opens.
        var wanted: AdvertisingState?
        var failure: String?
    }

    init(spec: HCITransportSpec, address: DeviceAddress, sim: Simulation, clock: any RigClock, owner: String) {
        self.spec = spec
        self.address = address
        self.sim = sim
        self.clock = clock
        self.owner = owner
    }

    var defaultAdvertisingInterval: Duration { .milliseconds(100) }

    func setAdvertising(_ set: AdvertisingState?, of address: DeviceAddress) {
        let stack = state.withLock { state in
            state.wanted = set
            return state.stack
        }
        apply(set, on: stack)
    }

    private func apply(_ set: AdvertisingState?, on stack: HCIStack?) {
        guard let stack else { return }
        if let set {
            stack.advertise(
                set.data, scanResponse: set.scanResponse, interval: set.interval, connectable: set.connectable)
        } else {
            stack.advertise(nil)
        }
    }

    /// Opens a fresh controller for the board (its chip powering up). Throws when the controller does not come up.
    func open() async throws(BenchError) {
        let transport: any HCITransport
        do { transport = try spec.open() } catch {
            throw BenchError(.missing, "board \(owner): its controller at \(spec) cannot be opened: \(error)")
        }
        let stack: HCIStack
        do {
            stack = try await HCIStack.open(
                transport, configuration: HCIHost.Configuration(randomAddress: address, scanning: .legacy),
                clock: clock)
        } catch {
            throw BenchError(.missing, "board \(owner): its controller at \(spec) did not start: \(error)")
        }
        stack.acceptConnections { [weak self] link in
            guard let self else { return nil }
            let bearer = HCIPeripheralBearer(stack: stack, link: link, sim: sim)
            let board = board
            sim.post { board?.value.accept(bearer) }
            return bearer
        }
        let wanted = state.withLock { state in
            state.stack = stack
            return state.wanted
        }
        apply(wanted, on: stack)
    }

    /// Closes the controller (the chip loses power): every link ends at the central's side.
    func close() async {
        let stack = state.withLock { state in
            defer { state.stack = nil }
            return state.stack
        }
        stack?.close()
    }
}

/// A connection as the served board sees it: PDUs from the stack's reader thread are posted to the simulation
/// thread, and kept until the board attaches its handlers.
final class HCIPeripheralBearer: PeripheralBearer, HCILinkHandler, @unchecked Sendable {
    // @unchecked Sendable: `handlers` and `early` are behind a mutex.
    let stack: HCIStack
    let handle: UInt16
    let connectionInterval: Duration?
    let sim: Simulation
    private let lock = NSLock()
    private var state = Inbox()

    struct Inbox {
        var receive: (([UInt8]) -> Void)?
        var down: ((HCIErrorCode) -> Void)?
        var early: [[UInt8]] = []
        var endedWith: HCIErrorCode?
        /// The board let go of this link (reset, power loss).
        var abandoned = false
    }

    init(stack: HCIStack, link: HCIHost.Link, sim: Simulation) {
        self.stack = stack
        handle = link.handle
        connectionInterval = link.intervalDuration
        self.sim = sim
    }

    private func withInbox<R>(_ body: (inout Inbox) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    // MARK: The board's side (simulation thread)

    func attach(receive: @escaping ([UInt8]) -> Void, down: @escaping (HCIErrorCode) -> Void) {
        let (early, ended) = withInbox { inbox in
            inbox.receive = receive
            inbox.down = down
            defer { inbox.early = [] }
            return (inbox.early, inbox.endedWith)
        }
        for pdu in early { receive(pdu) }
        if let ended { down(ended) }
    }

    func send(_ pdu: [UInt8]) { stack.send(pdu, on: handle) }
    var canSend: Bool { stack.canSend(on: handle) }
    func terminate(reason: HCIErrorCode) { stack.terminate(handle, reason: reason) }

    /// The board reset or lost power: the chip's radio stopped, and its link with it; the board hears nothing more.
    /// The power switch and the reset lines close the controller right after, but a reset the firmware does
    /// itself (REBOOT, a watchdog) leaves it open: so the controller ends the link here, as rootcanal does for a
    /// controller that goes away (0x15 at the central), rather than keep serving a link nobody answers on.
    func vanish() {
        withInbox { inbox in
            inbox.receive = nil
            inbox.down = nil
            inbox.early = []
            inbox.abandoned = true
        }
        stack.terminate(handle, reason: .remotePowerOff)
    }

    // MARK: The stack's side (reader thread)

    func receive(_ pdu: [UInt8]) {
        let bearer = self
        sim.post {
            let handler = bearer.withInbox { inbox -> (([UInt8]) -> Void)? in
                if inbox.receive == nil, !inbox.abandoned, inbox.endedWith == nil { inbox.early.append(pdu) }
                return inbox.receive
            }
            handler?(pdu)
        }
    }

    func linkDown(_ reason: HCIErrorCode) {
        let bearer = self
        sim.post {
            let handler = bearer.withInbox { inbox -> ((HCIErrorCode) -> Void)? in
                inbox.endedWith = reason
                return inbox.down
            }
            handler?(reason)
        }
    }
}
