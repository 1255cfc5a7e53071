import Foundation

/// The USB/IP board's event log (Tests/KernelTier/cdc_acm_board.py): one JSON object a line, each stamped with
/// the host's CLOCK_MONOTONIC time as the device received the request.
struct BoardLog: Sendable {
    struct Event: Decodable, Sendable {
        /// Seconds, host monotonic clock.
        let t: Double
        /// `lines`, `line_coding`, `boot`, `rx`, `mark`, `reenumerate`, `connection`, `connection_closed`, `ready`.
        let event: String
        let dtr: Bool?
        let rts: Bool?
        let baud: Int?
        let mode: String?
        let name: String?
        let pid: String?
    }

    let events: [Event]

    init(file: String) throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let decoder = JSONDecoder()
        events = try text.split(separator: "\n").enumerated().map { index, line in
            do {
                return try decoder.decode(Event.self, from: Data(line.utf8))
            } catch {
                throw KernelTierFailure("\(file):\(index + 1) is not a board event: \(error)\n\(line)")
            }
        }
    }

    /// The events after the mark `name` and before the next mark.
    func phase(_ name: String) throws -> [Event] {
        guard let start = events.firstIndex(where: { $0.event == "mark" && $0.name == name }) else {
            let marks = events.filter { $0.event == "mark" }.compactMap(\.name)
            throw KernelTierFailure("the board's log has no mark '\(name)' (marks: \(marks))")
        }
        let rest = events[(start + 1)...]
        let end = rest.firstIndex { $0.event == "mark" } ?? rest.endIndex
        return Array(rest[..<end])
    }

    /// The modem-line changes of `events`: a request that repeats the state the lines already had is no change.
    static func steps(_ events: some Collection<Event>) -> [LineStep] {
        var steps: [LineStep] = []
        for event in events where event.event == "lines" {
            let step = LineStep(t: event.t, dtr: event.dtr ?? false, rts: event.rts ?? false)
            if let last = steps.last, last.dtr == step.dtr, last.rts == step.rts { continue }
            steps.append(step)
        }
        return steps
    }

    /// esptool's connect attempts within `events`: after each reset it sends SYNC frames (bytes on bulk-out, `rx`),
    /// so the line changes between two bursts of bytes are one attempt's reset.
    static func attempts(_ events: [Event]) -> [[Event]] {
        var attempts: [[Event]] = []
        var current: [Event] = []
        for event in events {
            if event.event == "rx" {
                if current.contains(where: { $0.event == "lines" }) { attempts.append(current) }
                current = []
            } else {
                current.append(event)
            }
        }
        if current.contains(where: { $0.event == "lines" }) { attempts.append(current) }
        return attempts
    }
}

/// One modem-line state the board saw, with when it arrived. `dtr`/`rts` true means asserted (the pin at 0 V).
struct LineStep: Equatable, Sendable, CustomStringConvertible {
    let t: Double
    let dtr: Bool
    let rts: Bool

    var description: String { "D\(dtr ? 1 : 0)R\(rts ? 1 : 0)" }
}
