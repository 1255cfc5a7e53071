/// A position in a rig file (or any YAML file the orchestrator reads): the path as it was given, and the 1-based
/// line and column, columns counted in Unicode scalars as libyaml counts them (a tab is one column).
///
/// Line 0 stands for the file as a whole, for problems that have no position (a file that cannot be read); such a
/// location prints as the path alone. Every other location prints as `path:line:column`, the form compilers use,
/// so editors and CI annotations can jump to it.
///
/// Tests that also `import Testing` see two `SourceLocation`s; write `import struct Orchestrator.SourceLocation`
/// there, or avoid naming the type.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path of the file, as given to the loader.
    public var file: String
    /// The line, from 1; 0 for the file as a whole.
    public var line: Int
    /// The column in Unicode scalars, from 1; 0 for the file as a whole.
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// The file as a whole, for problems without a position.
    public static func wholeFile(_ file: String) -> SourceLocation { SourceLocation(file: file, line: 0, column: 0) }

    /// `rigs/bench.yaml:12:7`, or `rigs/bench.yaml` for the file as a whole.
    public var description: String { line == 0 ? file : "\(file):\(line):\(column)" }

    /// `12:7`: the position without the file, for pointing at another place in the same file.
    public var lineAndColumn: String { "\(line):\(column)" }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }
}
