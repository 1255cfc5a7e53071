/// One entry of `suites:`: a suite to run and its options, in the order written.
///
/// ```yaml
/// suites: [discovery, handshake]                          # names only
/// suites: [discovery, {handshake: {connections: 20}}]     # a one-key mapping: name and options
/// suites:
///   - discovery
///   - handshake:
///       connections: 20
/// ```
/// The loader checks the names against the suites the orchestrator has and leaves the options as a ``RigNode``
/// mapping: each suite reads its own options with ``RigMappingReader`` and reports problems at their
/// `file:line:column`.
public struct SuiteSelection: Hashable, Sendable {
    public var name: String
    /// Always a mapping; empty, located at the name, when the suite was selected without options.
    public var options: RigNode
    /// Where the suite's name is written.
    public var location: SourceLocation

    public init(name: String, options: RigNode? = nil, at location: SourceLocation) {
        self.name = name
        self.options = options ?? .emptyMapping(at: location)
        self.location = location
    }

    /// A reader over the options, recording into `diagnostics`; its messages call them `<name> options`.
    public func optionsReader(diagnostics: RigDiagnostics) -> RigMappingReader? {
        RigMappingReader(options, noun: "\(name) options", diagnostics: diagnostics)
    }
}
