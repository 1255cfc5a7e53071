import BLECore

/// The simulation's pending timed actions, ordered by deadline and then by the order they were scheduled, so two
/// actions due at the same instant always run in the same order. A binary min-heap with lazy cancellation.
struct TimerQueue {
    struct ID: Hashable, Sendable {
        let sequence: UInt64
    }

    /// A heap slot: plain values only, so sifting copies no reference (the actions wait in ``actions``).
    private struct Entry {
        let deadline: RigInstant
        let sequence: UInt64

        func precedes(_ other: Entry) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private var heap: [Entry] = []
    /// The live timers' actions by sequence; a cancelled timer's slot stays in the heap until it surfaces.
    private var actions: [UInt64: @Sendable () -> Void] = [:]
    private var nextSequence: UInt64 = 0
    /// The run is over: nothing is kept, nothing fires.
    private(set) var isClosed = false

    /// Timers scheduled and not yet run or cancelled.
    var count: Int { actions.count }
    var isEmpty: Bool { count == 0 }

    mutating func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> ID {
        nextSequence += 1
        guard !isClosed else { return ID(sequence: nextSequence) }
        heap.append(Entry(deadline: deadline, sequence: nextSequence))
        actions[nextSequence] = action
        siftUp(heap.count - 1)
        return ID(sequence: nextSequence)
    }

    /// Drops every pending timer, and every one scheduled from now on: the actions and what they capture are
    /// released.
    mutating func close() {
        isClosed = true
        heap = []
        actions = [:]
    }

    /// Cancels a timer; cancelling one that already ran or was cancelled does nothing.
    mutating func cancel(_ id: ID) {
        actions[id.sequence] = nil
    }

    /// Removes and returns the earliest live timer.
    mutating func popEarliest() -> (deadline: RigInstant, action: @Sendable () -> Void)? {
        while let top = heap.first {
            removeTop()
            guard let action = actions.removeValue(forKey: top.sequence) else { continue }
            return (top.deadline, action)
        }
        return nil
    }

    /// The deadline of the earliest live timer.
    mutating func earliestDeadline() -> RigInstant? {
        while let top = heap.first, actions[top.sequence] == nil {
            removeTop()
        }
        return heap.first?.deadline
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
