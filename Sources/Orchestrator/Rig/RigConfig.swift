/// A rig file, checked: the radio, the boards, the virtual farm's settings and the suites to run.
///
/// ```yaml
/// rig: bench-a                       # a name: letters, digits, '.', '-' and '_'
/// radio: virtual                     # see RadioConfig
/// boards: [...]                      # at least one, see BoardConfig
/// virtual: {seed: 42, ...}           # see VirtualFarmConfig
/// suites: [discovery, {handshake: {connections: 20}}]   # at least one, see SuiteSelection
/// gates: rigs/gates.yaml             # optional
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
    public var radio: RadioConfig
    public var boards: [BoardConfig]
    /// Always set when the radio is virtual (defaults applied if the block is absent); on a hardware rig set only
    /// if written, and unused.
    public var virtual: VirtualFarmConfig?
    public var suites: [SuiteSelection]
    /// The release gates file.
    public var gates: FileReference?
    /// Where the document starts; its `file` is the rig file's path.
    public var location: SourceLocation

    public init(
        name: String, radio: RadioConfig, boards: [BoardConfig], virtual: VirtualFarmConfig? = nil,
        suites: [SuiteSelection], gates: FileReference? = nil, at location: SourceLocation
    ) {
        self.name = name
        self.radio = radio
        self.boards = boards
        self.virtual = virtual
        self.suites = suites
        self.gates = gates
        self.location = location
    }

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
