import BLECore

/// A peripheral's GATT table as a client sees it after walking it: every primary service, its characteristics
/// with their handles and properties, their descriptors, and what reading each readable attribute gave.
/// ``GATTWalker`` builds it; `blerig probe` prints it.
public struct GATTTable: Hashable, Sendable {
    public var services: [Service]
    /// Why the walk ended before the table was complete (the link went down, a request timed out); nil when every
    /// service was walked. What was found before is kept.
    public var stopped: Stop?

    public init(services: [Service] = [], stopped: Stop? = nil) {
        self.services = services
        self.stopped = stopped
    }

    /// True when every service, characteristic and descriptor was walked.
    public var isComplete: Bool { stopped == nil }

    /// Every attribute read, in walk order: characteristic values, then each characteristic's descriptors.
    public var reads: [(handle: UInt16, result: ReadResult)] {
        services.flatMap { service in
            service.characteristics.flatMap { characteristic in
                (characteristic.value.map { [(characteristic.valueHandle, $0)] } ?? [])
                    + characteristic.descriptors.map { ($0.handle, $0.value) }
            }
        }
    }

    public struct Service: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var handles: ClosedRange<UInt16>
        public var characteristics: [Characteristic]
        /// The ATT error the server answered characteristic discovery with; the service's characteristics are then
        /// unknown.
        public var discoveryError: ATT.ErrorCode?

        public init(
            uuid: BluetoothUUID, handles: ClosedRange<UInt16>, characteristics: [Characteristic] = [],
            discoveryError: ATT.ErrorCode? = nil
        ) {
            self.uuid = uuid
            self.handles = handles
            self.characteristics = characteristics
            self.discoveryError = discoveryError
        }
    }

    public struct Characteristic: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var properties: GATT.CharacteristicProperties
        public var declarationHandle: UInt16
        public var valueHandle: UInt16
        /// What reading the value gave; nil when the characteristic lacks the Read property, so it was not read.
        public var value: ReadResult?
        public var descriptors: [Descriptor]
        /// The ATT error the server answered descriptor discovery with; the descriptors are then unknown.
        public var discoveryError: ATT.ErrorCode?

        public init(
            uuid: BluetoothUUID, properties: GATT.CharacteristicProperties, declarationHandle: UInt16,
            valueHandle: UInt16, value: ReadResult? = nil, descriptors: [Descriptor] = [],
            discoveryError: ATT.ErrorCode? = nil
        ) {
            self.uuid = uuid
            self.properties = properties
            self.declarationHandle = declarationHandle
            self.valueHandle = valueHandle
            self.value = value
            self.descriptors = descriptors
            self.discoveryError = discoveryError
        }
    }

    public struct Descriptor: Hashable, Sendable {
        public var uuid: BluetoothUUID
        public var handle: UInt16
        /// A client cannot know a descriptor's permissions, so every descriptor is read; a refusal is its result.
        public var value: ReadResult

        public init(uuid: BluetoothUUID, handle: UInt16, value: ReadResult) {
            self.uuid = uuid
            self.handle = handle
            self.value = value
        }
    }

    /// What reading one attribute gave: its whole value (long values read to their end with Read Blob), or the
    /// ATT error the server refused it with.
    public enum ReadResult: Hashable, Sendable {
        case value([UInt8])
        case error(ATT.ErrorCode)
    }

    /// Why a walk stopped early: what it was doing, and the error. Only failures that leave the bearer unusable
    /// stop a walk; an ATT error is an answer and is recorded in place.
    public struct Stop: Error, Hashable, Sendable, CustomStringConvertible {
        public var during: String
        public var error: GATTError?

        /// `error` nil: the walk was cancelled (the user interrupted it).
        public init(during: String, error: GATTError?) {
            self.during = during
            self.error = error
        }

        public var description: String { "\(during): \(error.map { "\($0)" } ?? "interrupted")" }
    }
}
