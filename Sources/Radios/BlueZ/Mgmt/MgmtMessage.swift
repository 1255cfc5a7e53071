import BLECore

/// The parameters of one mgmt message, as bytes and back: a command, a command's reply, or an event. Decoding
/// checks every length and throws ``DecodingError``; `init(parameters:)` of `parameters` gives the same value back.
public protocol MgmtParameters: Hashable, Sendable {
    init(parameters: [UInt8]) throws(DecodingError)
    var parameters: [UInt8] { get }
}

/// A command (mgmt-api.txt, "Commands"): its opcode, and the return parameters of its Command Complete.
public protocol MgmtCommand: MgmtParameters {
    associatedtype Reply: MgmtParameters
    static var opcode: Mgmt.Opcode { get }
}

/// An event (mgmt-api.txt, "Events").
public protocol MgmtEvent: MgmtParameters {
    static var code: Mgmt.EventCode { get }
}

extension MgmtCommand {
    /// The command as a packet for controller `index`.
    public func packet(index: UInt16) -> Mgmt.Packet {
        Mgmt.Packet(code: Self.opcode.rawValue, index: index, parameters: parameters)
    }
}

extension MgmtEvent {
    public func packet(index: UInt16) -> Mgmt.Packet {
        Mgmt.Packet(code: Self.code.rawValue, index: index, parameters: parameters)
    }
}

extension Mgmt {
    /// The empty parameters of a command or reply that has none.
    public struct NoParameters: MgmtParameters {
        public init() {}
        public init(parameters: [UInt8]) throws(DecodingError) {
            try ByteReader(parameters, context: "mgmt parameters").expectEnd()
        }
        public var parameters: [UInt8] { [] }
    }
}
