import BLECore

/// Switches a board's power: a hub port, a relay, the virtual farm's supply (labgrid's `PowerProtocol`).
public protocol PowerSwitch: Sendable {
    /// What switches the power, for messages: `hub 1-1.4 port 2`, `virtual supply`.
    var description: String { get }
    func on() async throws(BenchError)
    func off() async throws(BenchError)
}

extension PowerSwitch {
    /// Off, `offFor` on `clock`, on: a cold boot (`reset=POWERON`). Cancelling the wait leaves the board off.
    public func cycle(offFor: Duration = .milliseconds(500), clock: any RigClock) async throws(BenchError) {
        try await off()
        do { try await clock.sleep(for: offFor) } catch {
            throw BenchError(.cancelled, "power cycle of \(description) cancelled while the board was off")
        }
        try await on()
    }
}

/// The ways a board can be reset without cutting its power.
public enum ResetKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Restart the application: the EN line of an ESP32 (`reset=EXT`).
    case run
    /// Enter the ROM or USB bootloader to be flashed: esptool's DTR/RTS sequence, the 1200-baud touch.
    case bootloader

    public var description: String { rawValue }
}

/// Resets a board through wires other than power: serial modem lines, a debug probe, the virtual farm's EN line.
public protocol ResetControl: Sendable {
    /// The resets this wiring can do (`esp32-classic`: run and bootloader; `run-only`: run).
    var kinds: [ResetKind] { get }
    /// Performs the reset and returns once the sequence is done (the board then boots on its own).
    func reset(_ kind: ResetKind) async throws(BenchError)
}

/// A board's console: the lines it prints, each with the instant it arrived and the boot it belongs to, and a way
/// to type commands (docs/board-contract.md, "The serial console").
public protocol BoardConsole: Sendable {
    /// What the console is, for messages: `/dev/ttyUSB0 @ 115200`, `virtual console`.
    var description: String { get }
    /// Delivers every line from now on to `handler`, in order, on the bench's executor. One handler at a time;
    /// attach it before powering the board on so the boot banner is not missed.
    func attach(_ handler: @escaping @Sendable (ConsoleEntry) -> Void)
    /// Types one line (a newline is added).
    func send(_ line: String) async throws(BenchError)
}

/// Where a radio puts the HCI traffic it captures. The run owns the sink and keeps one btsnoop file per board.
public protocol CaptureSink: Sendable {
    /// One H4 packet between the radio's host and controller; `peer` is the device it concerns, nil for traffic
    /// about no one board (scanning, controller setup).
    func record(radio: String, peer: DeviceAddress?, packet: HCI.H4Packet, direction: HCI.Direction, at: RigInstant)
}
