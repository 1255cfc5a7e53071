import BLECore

/// Opens the radio a ``RadioSpec`` names and runs a body with its ``Central``, on the radio's clock. The
/// orchestrator's one-radio tools (`blerig scan`, `blerig probe`) see only this; the composition root (`Benches`)
/// implements it, as it implements ``BenchFactory`` for campaigns.
public protocol RadioOpening: Sendable {
    /// Opens the radio, runs `body` with its central and clock, and closes the radio whatever `body` does. Errors
    /// opening the radio are ``RadioOpenError``s; the body's own errors come out unchanged. On the virtual farm the
    /// body runs inside the simulation, in virtual time, with the rig's boards powered on.
    func withCentral<T: Sendable>(
        _ spec: RadioSpec, _ body: @escaping @Sendable (any Central, any RigClock) async throws -> T
    ) async throws -> T
}

/// Why a radio could not be opened. The message says what is wrong, where, and what to do.
public struct RadioOpenError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: Hashable, Sendable {
        /// The spec does not parse.
        case invalidSpec
        /// The rig file of a `virtual:` spec is missing or wrong, or not a virtual rig.
        case rigFile
        /// The radio cannot be used: not available in this build, missing, busy, not permitted.
        case unavailable
    }

    public var code: Code
    /// One line per problem (a rig file may have several).
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A spec or rig file that is wrong is a usage error (nothing ran); a radio that cannot be used is the
    /// bench's failure.
    public var exitStatus: ExitStatus {
        switch code {
        case .invalidSpec, .rigFile: .usage
        case .unavailable: .infrastructure
        }
    }
}
