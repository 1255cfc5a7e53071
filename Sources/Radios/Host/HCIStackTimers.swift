import BLECore
import Foundation

/// The timed work of one ``HCIStack``, on a thread of its own: the host's deadline (its command timeout, which the
/// sans-I/O ``HCIHost`` names as ``HCIHost/nextDeadline``), the timers its links' GATT clients ask for (the ATT
/// transaction timeout), connection attempts' timeouts and the grace of a shutdown. The thread sleeps until the
/// earliest of them, and an earlier one wakes it: no task is started, cancelled or restarted for a timer.
///
/// Deadlines are instants of the stack's clock, which runs at the pace of real time (a ``WallClock``): the thread
/// waits `deadline − clock.now` of real time, but never longer than ``horizon`` at a time. So a deadline further off
/// than the thread's next wake costs no signal: a connection's command timeouts (5 s), its attempt's timeout and the
/// ATT transaction timeouts (30 s) are taken up when the thread next wakes, and only a deadline sooner than that wake
/// wakes it (a thread hop, and two trips through the scheduler, per handshake step otherwise). Actions run on the timer
/// thread, outside every lock.
final class HCIStackTimers: @unchecked Sendable {
    // @unchecked Sendable: every stored var is read and written only with `condition` locked.

    /// What a timer belongs to: it is dropped when that ends.
    enum Owner: Hashable, Sendable {
        case link(UInt16)
        case attempt(DeviceAddress)
        case shutdown
    }

    private struct Entry {
        let owner: Owner
        let action: @Sendable () -> Void
    }

    private struct Due: Comparable {
        let deadline: RigInstant
        let id: UInt64
        static func < (a: Due, b: Due) -> Bool { (a.deadline, a.id) < (b.deadline, b.id) }
    }

    private let clock: any RigClock
    private let condition = NSCondition()
    /// Pending timers by id; the heap holds ids whose entry may be gone (cancelled), skipped when they surface.
    private var entries: [UInt64: Entry] = [:]
    private var byOwner: [Owner: Set<UInt64>] = [:]
    private var heap = MinHeap<Due>()
    private var nextID: UInt64 = 0
    private var hostDeadline: RigInstant?
    private var stopped = false
    /// The instant the thread is waiting until, while it waits.
    private var scheduledWake: RigInstant?
    /// The longest the thread waits before it looks at its deadlines again.
    let horizon: Duration
    /// Times the thread was woken for a sooner deadline (for tests).
    private(set) var signals = 0
    /// Calls the host's ``HCIHost/tick(at:)`` once its deadline is reached.
    private let tick: @Sendable () -> Void

    init(clock: any RigClock, horizon: Duration = .seconds(1), tick: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.horizon = horizon
        self.tick = tick
        let thread = Thread { [self] in loop() }
        thread.name = "blerig-hci-timers"
        thread.start()
    }

    /// Timers pending (not yet fired nor dropped).
    var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return entries.count
    }

    /// Times the thread was woken for a sooner deadline.
    var wokenForDeadlines: Int {
        condition.lock()
        defer { condition.unlock() }
        return signals
    }

    /// Wakes the waiting thread when `deadline` comes before the wake it is waiting for. A thread that is not waiting
    /// looks at every deadline before it next waits. Called with `condition` locked.
    private func wake(for deadline: RigInstant) {
        guard let scheduled = scheduledWake, deadline < scheduled else { return }
        scheduledWake = nil
        signals += 1
        condition.signal()
    }

    /// Runs `action` once the clock reaches `deadline`, unless `owner` ends first (``drop(_:)``); false once stopped.
    @discardableResult
    func add(at deadline: RigInstant, for owner: Owner, _ action: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        nextID += 1
        entries[nextID] = Entry(owner: owner, action: action)
        byOwner[owner, default: []].insert(nextID)
        heap.insert(Due(deadline: deadline, id: nextID))
        wake(for: deadline)
        return true
    }

    /// Drops every timer of `owner` (its link went down, its attempt ended).
    func drop(_ owner: Owner) {
        condition.lock()
        defer { condition.unlock() }
        for id in byOwner.removeValue(forKey: owner) ?? [] { entries[id] = nil }
    }

    /// The host's next deadline after its latest call; wakes the thread when it comes before the thread's next wake.
    func hostDeadline(_ deadline: RigInstant?) {
        condition.lock()
        defer { condition.unlock() }
        hostDeadline = deadline
        if let deadline { wake(for: deadline) }
    }

    /// Drops every timer and ends the thread.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        entries = [:]
        byOwner = [:]
        heap = MinHeap()
        scheduledWake = nil
        condition.signal()
    }

    private func loop() {
        condition.lock()
        while !stopped {
            let now = clock.now
            var due: [@Sendable () -> Void] = []
            while let first = heap.min, first.deadline <= now {
                heap.removeMin()
                guard let entry = entries.removeValue(forKey: first.id) else { continue }
                byOwner[entry.owner]?.remove(first.id)
                if byOwner[entry.owner]?.isEmpty == true { byOwner[entry.owner] = nil }
                due.append(entry.action)
            }
            let hostDue = hostDeadline.map { $0 <= now } ?? false
            if hostDue { hostDeadline = nil }
            if !due.isEmpty || hostDue {
                condition.unlock()
                for action in due { action() }
                if hostDue { tick() }
                condition.lock()
                continue
            }
            let horizonEnd = now.advanced(by: horizon)
            let wake = min([heap.min?.deadline, hostDeadline].compactMap(\.self).min() ?? horizonEnd, horizonEnd)
            scheduledWake = wake
            _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, now.duration(to: wake).seconds)))
            scheduledWake = nil
        }
        condition.unlock()
    }
}

/// A binary min-heap.
struct MinHeap<Element: Comparable> {
    private var elements: [Element] = []

    var min: Element? { elements.first }
    var isEmpty: Bool { elements.isEmpty }

    mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMin() {
        let last = elements.removeLast()
        guard !elements.isEmpty else { return }
        elements[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
