import BLECore
import BenchCore

/// A bench radio on blerig's own HCI host: an ``HCIStack`` on a transport, offering its ``HCICentral``.
public final class HCIRadio: BenchRadio {
    public let id: String
    public let stack: HCIStack
    public let central: any Central
    public let maxLinks: Int

    public var kind: String { "hci \(stack.transport)" }

    public init(id: String, stack: HCIStack, maxLinks: Int, connectionParameters: HCI.ConnectionParameters? = nil) {
        self.id = id
        self.stack = stack
        self.maxLinks = maxLinks
        central =
            connectionParameters.map { HCICentral(stack: stack, connectionParameters: $0) } ?? HCICentral(stack: stack)
    }

    public func capture(into sink: any CaptureSink) { stack.capture(into: sink, as: id) }

    public var counters: [RadioCounter] { stack.counters }

    /// The host's executor: the central's work resumes on the thread that read the controller's answer.
    public var executor: (any TaskExecutor)? { stack.executor }
}
