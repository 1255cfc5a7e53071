/// What rootcanal's log says about its start: the ports it listens on, the ones it could not bind, whether it
/// finished initialising. Lines in, a status out; no I/O.
///
/// rootcanal 1.10 logs `Listening on: 6401 (3)` for each port it bound and `initialize: Finished` at the end.
/// A taken port is logged as `Error binding … to port: 6402, Address already in use`, and rootcanal then keeps
/// running without that port: a connection to it would reach whoever holds it. So the log, not a successful
/// connect, is the proof that rootcanal serves a port.
public struct RootcanalStartupLog: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        /// Not all ports are confirmed yet.
        case starting
        /// rootcanal listens on every expected port and has finished initialising.
        case ready
        /// rootcanal could not bind these ports (0 when the log did not say which).
        case portsInUse([UInt16])
    }

    public let expected: RootcanalPorts
    public private(set) var listening: Set<UInt16> = []
    public private(set) var portsInUse: [UInt16] = []
    public private(set) var initialised = false

    public init(expecting ports: RootcanalPorts) { self.expected = ports }

    public mutating func feed(_ line: String) {
        if let port = Self.number(after: "Listening on: ", in: line) {
            listening.insert(port)
        } else if line.contains("Address already in use") {
            portsInUse.append(Self.number(after: "port: ", in: line) ?? 0)
        } else if line.contains("initialize: Finished") {
            initialised = true
        }
    }

    public var status: Status {
        if !portsInUse.isEmpty { return .portsInUse(portsInUse) }
        return initialised && Set(expected.all).isSubset(of: listening) ? .ready : .starting
    }

    /// The expected ports the log has not confirmed yet.
    public var unconfirmed: [UInt16] { expected.all.filter { !listening.contains($0) } }

    private static func number(after marker: String, in line: String) -> UInt16? {
        guard let range = line.range(of: marker) else { return nil }
        return UInt16(line[range.upperBound...].prefix { $0.isASCII && $0.isNumber })
    }
}
