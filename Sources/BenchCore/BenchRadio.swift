import BLECore

/// One radio of a bench: a ``Central`` and the most links its controller holds at once. The orchestrator
/// schedules boards onto radios and never asks a radio for more links than ``maxLinks``; work beyond it waits.
public protocol BenchRadio: Sendable {
    /// The radio's id in the rig file (`radio` for a rig that names one radio with `radio:`).
    var id: String { get }

    /// What the radio is, for reports: `virtual`, `bluez hci0`, `hci tcp:127.0.0.1:6402`.
    var kind: String { get }

    var central: any Central { get }

    /// The most simultaneous links the controller holds (the rig's `max_links`, or the controller's own figure).
    var maxLinks: Int { get }

    /// Sends every HCI packet the radio's host exchanges with its controller to `sink` from now on, tagged with
    /// the peer it concerns. One sink at a time; attach it before the first scan or connection.
    func capture(into sink: any CaptureSink)

    /// Numbers about the radio's own work for the report (connection events run, skipped, ...), each with its
    /// definition. Read after the run.
    var counters: [RadioCounter] { get }

    /// Where work on this radio's central runs best: a task that prefers it and waits for the controller is resumed
    /// on the thread that read the controller's answer, with no hop to another thread (blerig's HCI host); nil
    /// when any thread will do (the virtual farm, whose tasks all run on the simulation's executor anyway).
    /// The campaign runs each board's work with this preference; work there must not block (the campaign's
    /// file writes go to a writer thread; the sync queue's commits hop away for their duration).
    var executor: (any TaskExecutor)? { get }
}

extension BenchRadio {
    public var executor: (any TaskExecutor)? { nil }
}

/// A number a radio counted about itself.
public struct RadioCounter: Sendable, Hashable {
    /// A metric name, `radio.events_skipped`.
    public var metric: String
    public var value: Double
    /// What was counted, in words.
    public var definition: String

    public init(metric: String, value: Double, definition: String) {
        self.metric = metric
        self.value = value
        self.definition = definition
    }
}
