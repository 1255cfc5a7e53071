import BLECore

/// The simulation's pending timed actions, ordered by deadline and then by the order they were scheduled, so two
/// actions due at the same instant always run in the same order. A binary min-heap with lazy cancellation.
struct TimerQueue {
    struct ID: Hashable, Sendable {
        let sequence: UInt64
    }

    private struct Entry {
        let deadline: RigInstant
        let id: ID
        let action: @Sendable () -> Void

        func precedes(_ other: Entry) -> Bool {
            (deadline, id.sequence) < (other.deadline, other.id.sequence)
        }
    }

    private var heap: [Entry] = []
    private var live: Set<ID> = []
    private var nextSequence: UInt64 = 0

    /// Timers scheduled and not yet run or cancelled.
    var count: Int { live.count }
    var isEmpty: Bool { count == 0 }

    mutating func schedule(at deadline: RigInstant, _ action: @escaping @Sendable () -> Void) -> ID {
        nextSequence += 1
        let entry = Entry(deadline: deadline, id: ID(sequence: nextSequence), action: action)
        heap.append(entry)
        live.insert(entry.id)
        siftUp(heap.count - 1)
        return entry.id
    }

    /// Cancels a timer; cancelling one that already ran or was cancelled does nothing.
    mutating func cancel(_ id: ID) {
        live.remove(id)
    }

    /// Removes and returns the earliest live timer.
    mutating func popEarliest() -> (deadline: RigInstant, action: @Sendable () -> Void)? {
        while let top = heap.first {
            removeTop()
            guard live.remove(top.id) != nil else { continue }
            return (top.deadline, top.action)
        }
        return nil
    }

    /// The deadline of the earliest live timer.
    mutating func earliestDeadline() -> RigInstant? {
        while let top = heap.first, !live.contains(top.id) {
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
