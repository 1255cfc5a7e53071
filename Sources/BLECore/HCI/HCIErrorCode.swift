/// An HCI error code, also used as the reason of a disconnection (Core 5.4 Vol 1 Part F §1.3).
public struct HCIErrorCode: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = Self(rawValue: 0x00)
    public static let unknownConnectionIdentifier = Self(rawValue: 0x02)
    public static let pageTimeout = Self(rawValue: 0x04)
    public static let authenticationFailure = Self(rawValue: 0x05)
    public static let memoryCapacityExceeded = Self(rawValue: 0x07)
    /// The supervision timeout expired without a packet from the peer.
    public static let connectionTimeout = Self(rawValue: 0x08)
    public static let connectionLimitExceeded = Self(rawValue: 0x09)
    public static let commandDisallowed = Self(rawValue: 0x0C)
    public static let connectionAcceptTimeoutExceeded = Self(rawValue: 0x10)
    public static let unsupportedFeature = Self(rawValue: 0x11)
    public static let invalidParameters = Self(rawValue: 0x12)
    /// The peer's host closed the link.
    public static let remoteUserTerminated = Self(rawValue: 0x13)
    public static let remoteLowResources = Self(rawValue: 0x14)
    /// The peer closed the link because it is powering off.
    public static let remotePowerOff = Self(rawValue: 0x15)
    /// This side's host closed the link.
    public static let localHostTerminated = Self(rawValue: 0x16)
    public static let unspecifiedError = Self(rawValue: 0x1F)
    public static let lmpResponseTimeout = Self(rawValue: 0x22)
    public static let instantPassed = Self(rawValue: 0x28)
    public static let unacceptableConnectionParameters = Self(rawValue: 0x3B)
    public static let advertisingTimeout = Self(rawValue: 0x3C)
    public static let micFailure = Self(rawValue: 0x3D)
    /// The link layer sent a connect request but never heard from the peer.
    public static let connectionFailedToBeEstablished = Self(rawValue: 0x3E)

    public var name: String {
        switch self {
        case .success: "success"
        case .unknownConnectionIdentifier: "unknown connection identifier"
        case .pageTimeout: "page timeout"
        case .authenticationFailure: "authentication failure"
        case .memoryCapacityExceeded: "memory capacity exceeded"
        case .connectionTimeout: "connection timeout"
        case .connectionLimitExceeded: "connection limit exceeded"
        case .commandDisallowed: "command disallowed"
        case .connectionAcceptTimeoutExceeded: "connection accept timeout exceeded"
        case .unsupportedFeature: "unsupported feature or parameter value"
        case .invalidParameters: "invalid HCI command parameters"
        case .remoteUserTerminated: "remote user terminated connection"
        case .remoteLowResources: "remote device terminated connection due to low resources"
        case .remotePowerOff: "remote device terminated connection due to power off"
        case .localHostTerminated: "connection terminated by local host"
        case .unspecifiedError: "unspecified error"
        case .lmpResponseTimeout: "LL response timeout"
        case .instantPassed: "instant passed"
        case .unacceptableConnectionParameters: "unacceptable connection parameters"
        case .advertisingTimeout: "advertising timeout"
        case .micFailure: "connection terminated due to MIC failure"
        case .connectionFailedToBeEstablished: "connection failed to be established"
        default: "HCI error"
        }
    }

    /// `0x08 (connection timeout)`.
    public var description: String {
        let hex = String(rawValue, radix: 16, uppercase: true)
        return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
    }
}
