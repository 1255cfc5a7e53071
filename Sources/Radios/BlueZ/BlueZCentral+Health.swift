import BLECore
import Glibc

extension BlueZCentral {
    /// Calls `handler` once, at once, with why the adapter stopped being usable under the running central: it was
    /// removed (mgmt Index Removed: unplugged, its driver unloaded, the process behind a virtual controller gone),
    /// switched off by another program (mgmt New Settings without `powered`; blerig's own ``setPowered(_:)`` is not
    /// reported), or the mgmt socket ended. Never after ``close()``. The bench reports it as a fault of the radio
    /// before the links and scans end, so the checks it breaks are the radio's failure, not the boards'.
    public func whenAdapterFails(_ handler: @escaping @Sendable (String) -> Void) {
        let failure = state.withLock { state -> String? in
            if state.failure == nil { state.failureHandlers.append(handler) }
            return state.failure
        }
        if let failure { handler(failure) }
    }

    /// Why the adapter failed under the central, or nil while it works.
    public var adapterFailure: String? { state.withLock { $0.failure } }

    /// Records the first failure and tells the handlers; later ones and failures after ``close()`` are dropped.
    func adapterFailed(_ why: String) {
        let handlers = state.withLock { state -> [@Sendable (String) -> Void] in
            guard state.failure == nil, !state.closed else { return [] }
            state.failure = why
            defer { state.failureHandlers = [] }
            return state.failureHandlers
        }
        for handler in handlers { handler(why) }
    }

    /// The adapter went from powered to off, and not by blerig. The kernel unregisters an adapter in the same
    /// order (off first, Index Removed after), but takes it off its device list before either: an adapter that
    /// HCIGETDEVINFO no longer finds is going away.
    func adapterSwitchedOff() {
        if adapterExists() == false {
            adapterFailed(Self.removed(adapter))
        } else {
            adapterFailed(
                "hci\(adapter) was switched off under the run by another program (mgmt New Settings without "
                    + "powered: bluetoothctl power off, btmgmt, rfkill); blerig does not switch it back on")
        }
    }

    /// Whether the kernel still lists the adapter; nil when it cannot be asked.
    func adapterExists() -> Bool? {
        let socket: Int32
        do { socket = try hciSockets.openHCISocket() } catch { return nil }
        defer { hciSockets.close(socket) }
        do {
            _ = try hciSockets.adapterInfo(socket, adapter: adapter)
            return true
        } catch where error.code == ENODEV {
            return false
        } catch {
            return nil
        }
    }

    static func removed(_ adapter: UInt16) -> String {
        "hci\(adapter) was removed under the run (mgmt Index Removed): the adapter was unplugged, its driver "
            + "unloaded or its transport closed (hci_vhci: the process holding /dev/vhci ended)"
    }
}
