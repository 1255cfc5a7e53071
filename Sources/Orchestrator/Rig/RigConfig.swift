/// A rig file, checked: the radios, the boards, the virtual farm's settings and the suites to run.
///
/// ```yaml
/// rig: bench-a                       # a name: letters, digits, '.', '-' and '_'
/// radio: virtual                     # one radio, see RadioConfig; or radios: [{id: r1, kind: ...}, ...]
/// boards: [...]                      # at least one, see BoardConfig
/// virtual: {seed: 42, ...}           # see VirtualFarmConfig
/// suites: [discovery, {handshake: {connections: 20}}]   # at least one, see SuiteSelection
/// gates: rigs/gates.yaml             # optional
/// after_run: off                     # off | on: the boards' power when the run ends; default off
/// ```
/// Load one with ``RigFile/load(contentsOf:knownSuites:)``.
public struct RigConfig: Hashable, Sendable {
    /// A file named by the rig file, with where it was named; the path is kept as written (relative paths are
    /// relative to the working directory, like `rigs/gates.yaml`), not checked for existence.
    public struct FileReference: Hashable, Sendable {
        public var path: String
        public var location: SourceLocation

        public init(path: String, at location: SourceLocation) {
            self.path = path
            self.location = location
        }
    }

    /// `rig:`, the rig's name.
    public var name: String
    /// The radios, in the order written; never empty. `radio:` gives one, with id `radio`.
    public var radios: [RadioConfig]
    public var boards: [BoardConfig]
    /// Always set when the rig is virtual (defaults applied if the block is absent); on a hardware rig set only
    /// if written, and unused.
    public var virtual: VirtualFarmConfig?
    public var suites: [SuiteSelection]
    /// The release gates file.
    public var gates: FileReference?
    /// `after_run:`, the boards' power when the run ends (also after an interruption); `off` when not written.
    public var afterRun: AfterRun
    /// `retries:` and `rerun_failed:`: how often a suite is tried again on a board, by failure class.
    public var retries = RetryPolicy()
    /// Where the document starts; its `file` is the rig file's path.
    public var location: SourceLocation

    /// `radios` must not be empty.
    public init(
        name: String, radios: [RadioConfig], boards: [BoardConfig], virtual: VirtualFarmConfig? = nil,
        suites: [SuiteSelection], gates: FileReference? = nil, afterRun: AfterRun = .off, at location: SourceLocation
    ) {
        precondition(!radios.isEmpty, "a rig has at least one radio")
        self.name = name
        self.radios = radios
        self.boards = boards
        self.virtual = virtual
        self.suites = suites
        self.gates = gates
        self.afterRun = afterRun
        self.location = location
    }

    /// A rig with one radio.
    public init(
        name: String, radio: RadioConfig, boards: [BoardConfig], virtual: VirtualFarmConfig? = nil,
        suites: [SuiteSelection], gates: FileReference? = nil, afterRun: AfterRun = .off, at location: SourceLocation
    ) {
        self.init(
            name: name, radios: [radio], boards: boards, virtual: virtual, suites: suites, gates: gates,
            afterRun: afterRun, at: location)
    }

    /// The first radio: the only one of a rig written with `radio:`. Kept for code that knows one radio.
    public var radio: RadioConfig {
        get { radios[0] }
        set { radios[0] = newValue }
    }

    /// True when every radio is virtual: the boards are the virtual farm's. (A rig never mixes virtual and
    /// hardware radios.)
    public var isVirtual: Bool { radios.allSatisfy(\.isVirtual) }

    /// True when blerig serves the boards from their models (virtual farm or rootcanal).
    public var servesBoardModels: Bool { radios.allSatisfy(\.servesBoardModels) }

    /// The radio with `id`, if any.
    public func radio(id: String) -> RadioConfig? { radios.first { $0.id == id } }

    /// The board with `id`, if any.
    public func board(id: String) -> BoardConfig? { boards.first { $0.id == id } }

    /// The selection of the suite `name`, if selected.
    public func suite(named name: String) -> SuiteSelection? { suites.first { $0.name == name } }

    /// Rig names: 1 to 64 of `A-Z a-z 0-9 . - _`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }
}
