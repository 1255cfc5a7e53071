/// A board's timeline as the fold keeps it. Without a limit it keeps every entry. With a limit `L` it keeps the
/// first `L / 4` entries (how the board came up) and the last `L - L / 4` in a ring (how it ended), and counts
/// the entries that fell out between the two, and how many of those were log lines at `warning` or above. It
/// never holds more than `L` entries, however many it is given.
struct TimelineBuffer: Sendable {
    private let headCapacity: Int
    private let tailCapacity: Int
    private var head: [TimelineEntry] = []
    /// Once full, a ring whose oldest entry is at `tailStart`.
    private var tail: [TimelineEntry] = []
    private var tailStart = 0
    /// Entries dropped between the head and the tail.
    private(set) var elided = 0
    /// Of ``elided``, the log lines at `warning` or above.
    private(set) var elidedWarnings = 0

    /// `limit` nil keeps everything; a negative limit is taken as zero (nothing kept, everything counted).
    init(limit: Int?) {
        if let limit {
            let limit = max(0, limit)
            headCapacity = limit / 4
            tailCapacity = limit - limit / 4
        } else {
            headCapacity = .max
            tailCapacity = 0
        }
    }

    mutating func append(_ entry: TimelineEntry) {
        if head.count < headCapacity {
            head.append(entry)
        } else if tail.count < tailCapacity {
            tail.append(entry)
        } else if tailCapacity == 0 {
            drop(entry)
        } else {
            drop(tail[tailStart])
            tail[tailStart] = entry
            tailStart += 1
            if tailStart == tailCapacity { tailStart = 0 }
        }
    }

    /// The kept entries: the head, then the tail from its oldest entry, each in time order. An entry reported
    /// after later ones takes its place by time: the app central's `connected` transition is stamped at link-up
    /// but reported once the session is ready. Entries at the same instant keep the order they came in.
    var entries: [TimelineEntry] {
        var entries = Self.chronological(head)
        entries.reserveCapacity(head.count + tail.count)
        entries += Self.chronological(Array(tail[tailStart...] + tail[..<tailStart]))
        return entries
    }

    private static func chronological(_ entries: [TimelineEntry]) -> [TimelineEntry] {
        guard zip(entries, entries.dropFirst()).contains(where: { $0.at > $1.at }) else { return entries }
        return entries.enumerated()
            .sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
    }

    /// How many of ``entries`` came before the elided ones: the head's length.
    var elisionIndex: Int { head.count }

    private mutating func drop(_ entry: TimelineEntry) {
        elided += 1
        if case .log(let line) = entry, line.level >= .warning { elidedWarnings += 1 }
    }
}
