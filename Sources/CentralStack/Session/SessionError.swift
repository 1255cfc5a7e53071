import BLECore
import DeviceProfiles

/// Why the central stack could not do what it was asked on a board. Every case says what it was doing.
public enum SessionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A GATT operation failed.
    case gatt(GATTError, during: String)
    /// The board does not offer a service its profile requires: the wrong board, or firmware that does not match.
    case missingService(BluetoothUUID, profile: Profile)
    /// The board's service lacks a characteristic (or its CCCD) that the profile requires.
    case missingCharacteristic(BluetoothUUID, service: BluetoothUUID, profile: Profile)
    /// Nothing arrived in time.
    case timeout(waitingFor: String, after: Duration)
    /// The link closed while the stack waited.
    case linkClosed(waitingFor: String)
    /// A board command answered with a non-zero status.
    case commandFailed(opcode: UInt8, status: EspPoint.CommandStatus.Code)
    /// The board sent bytes the contract does not allow.
    case protocolViolation(String)
    /// The board is paired with a key the stack does not have, or refused the answer to its challenge.
    case authenticationFailed(String)
    case cancelled(during: String)
    /// The radio ended a scan before its time was up (switched off, gone, or refusing to scan): not the board's
    /// silence.
    case scanEnded(waitingFor: String, after: Duration)

    public var description: String {
        switch self {
        case let .gatt(error, during): "\(during): \(error)"
        case let .missingService(uuid, profile): "the board lacks the \(profile) service \(uuid)"
        case let .missingCharacteristic(uuid, service, profile):
            "the board's service \(service) lacks the \(profile) characteristic \(uuid)"
        case let .timeout(what, after):
            "timed out after \(after.milliseconds.formatted(decimals: 0)) ms waiting for \(what)"
        case let .linkClosed(what): "the link closed while waiting for \(what)"
        case let .commandFailed(opcode, status): "command 0x\(String(opcode, radix: 16)) failed: \(status)"
        case let .protocolViolation(why): "protocol violation: \(why)"
        case let .authenticationFailed(why): "authentication failed: \(why)"
        case let .cancelled(during): "cancelled during \(during)"
        case let .scanEnded(what, after):
            "the radio ended its scan \(after.milliseconds.formatted(decimals: 0)) ms into the wait for \(what) "
                + "(switched off, gone, or refusing to scan)"
        }
    }
}

extension Double {
    /// Fixed-point text without Foundation.
    func formatted(decimals: Int) -> String {
        let factor = (0..<decimals).reduce(1.0) { r, _ in r * 10 }
        let scaled = (self * factor).rounded()
        let negative = scaled < 0
        let magnitude = Int64(abs(scaled))
        let whole = magnitude / Int64(factor)
        guard decimals > 0 else { return (negative ? "-" : "") + String(whole) }
        let fraction = String(magnitude % Int64(factor))
        return (negative ? "-" : "") + "\(whole)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}
