extension GATTClient {
    /// Names one procedure from ``GATTClient/start(_:id:)`` to its ``Action/complete(_:_:)``. The caller picks the
    /// values; they only have to be unique among the procedures the client holds.
    public struct OperationID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        public init(_ rawValue: UInt64) { self.rawValue = rawValue }

        public var description: String { "op\(rawValue)" }
    }

    /// A GATT client procedure (Core 5.4 Vol 3 Part G §4), as a caller asks for it.
    public enum Procedure: Hashable, Sendable {
        /// Exchange MTU (§4.3.1). Sent at most once per link; later ones complete at once with the current MTU.
        /// `preferred` is clamped to 23...517.
        case exchangeMTU(preferred: UInt16)
        /// Discover All Primary Services (§4.4.1), or Discover Primary Service by Service UUID (§4.4.2).
        case discoverPrimaryServices(BluetoothUUID?)
        /// Discover All Characteristics of a Service (§4.6.1).
        case discoverCharacteristics(GATT.Service)
        /// Discover All Characteristic Descriptors (§4.7.1); completes at once when the characteristic has no
        /// handles after its value.
        case discoverDescriptors(GATT.Characteristic)
        /// Read Characteristic Value (§4.8.1), continued as Read Long Characteristic Values (§4.8.3) with Read Blob
        /// Requests while every part fills ATT_MTU − 1 bytes.
        case read(UInt16)
        /// Read Multiple Characteristic Values (§4.8.4): two or more handles, the values concatenated.
        case readMultiple([UInt16])
        /// Read Multiple Variable Length Characteristic Values (§4.8.5): two or more handles, one value each. The
        /// last value may be cut at ATT_MTU − 1 bytes of response; read it with ``read(_:)`` for the rest.
        case readMultipleVariable([UInt16])
        /// Read Using Characteristic UUID (§4.8.2): one Read By Type Request over the range; the values of the
        /// characteristics of that type that fit one response, with their handles. Attribute Not Found gives none.
        case readByType(BluetoothUUID, in: ClosedRange<UInt16>)
        /// Write Characteristic Value (§4.9.3) when the value fits ATT_MTU − 3 bytes, else Write Long
        /// Characteristic Values (§4.9.4) with Prepare Write Requests of ATT_MTU − 5 bytes and an Execute Write.
        case write([UInt8], to: UInt16)
        /// Reliable Writes (§4.9.5): every part is prepared and its echo checked, then all are executed together;
        /// a mismatched echo cancels the lot.
        case reliableWrite([WriteItem])

        /// Writes a Client Characteristic Configuration descriptor (§4.12.3): 0x0001 subscribes to notifications,
        /// 0x0002 to indications, 0x0000 unsubscribes.
        public static func configure(cccd: UInt16, _ configuration: GATT.ClientConfiguration) -> Self {
            .write([UInt8(truncatingIfNeeded: configuration.rawValue), UInt8(configuration.rawValue >> 8)], to: cccd)
        }

        /// `Read on handle 0x0003`, for error messages.
        public var summary: String {
            switch self {
            case .exchangeMTU(let preferred): "Exchange MTU (\(preferred))"
            case .discoverPrimaryServices(let uuid):
                uuid.map { "Discover Primary Service \($0)" } ?? "Discover Primary Services"
            case .discoverCharacteristics(let service): "Discover Characteristics of \(service)"
            case .discoverDescriptors(let characteristic): "Discover Descriptors of \(characteristic)"
            case .read(let handle): "Read on handle \(ATT.hex(handle))"
            case .readMultiple(let handles): "Read Multiple on \(handles.map { ATT.hex($0) }.joined(separator: ","))"
            case .readMultipleVariable(let handles):
                "Read Multiple Variable on \(handles.map { ATT.hex($0) }.joined(separator: ","))"
            case .readByType(let type, let range):
                "Read Using Characteristic UUID \(type) in \(ATT.hex(range.lowerBound))...\(ATT.hex(range.upperBound))"
            case .write(let value, let handle): "Write of \(value.count) byte(s) on handle \(ATT.hex(handle))"
            case .reliableWrite(let items): "Reliable Write of \(items.count) value(s)"
            }
        }
    }

    /// One value of a reliable write.
    public struct WriteItem: Hashable, Sendable {
        public var handle: UInt16
        public var value: [UInt8]

        public init(handle: UInt16, value: [UInt8]) {
            self.handle = handle
            self.value = value
        }
    }

    /// What a procedure produced.
    public enum Outcome: Hashable, Sendable {
        /// The effective ATT_MTU after Exchange MTU.
        case mtu(UInt16)
        case services([GATT.Service])
        case characteristics([GATT.Characteristic])
        case descriptors([GATT.Descriptor])
        /// A read value, or the concatenated values of Read Multiple.
        case value([UInt8])
        /// The values of Read Multiple Variable, in request order.
        case values([[UInt8]])
        /// The handle–value pairs of Read Using Characteristic UUID, in handle order.
        case handleValues([GATT.HandleValue])
        /// A write (plain, long or reliable) completed.
        case written
    }

    /// What the client asks its shell to do. Carry actions out in order.
    public enum Action: Hashable, Sendable {
        /// Transmit this request on the bearer, then report it with ``GATTClient/didSend(at:)``: the ATT
        /// transaction timer starts then. There is never more than one request outstanding.
        case send([UInt8])
        /// Transmit this PDU now, outside the request flow: a Handle Value Confirmation answering an indication,
        /// or the answer to a request the peer made.
        case reply([UInt8])
        /// A procedure ended. Every procedure started ends with exactly one of these.
        case complete(OperationID, Result<Outcome, GATTError>)
        /// A value the server pushed (notification or indication), stamped with the time it was received.
        case deliver(GATT.ValueEvent)
    }

    /// Counters for measurements and for spotting a misbehaving peer.
    public struct Statistics: Hashable, Sendable {
        /// Requests handed to the bearer (``GATTClient/didSend(at:)`` calls).
        public var requestsSent = 0
        /// PDUs taken as the response to an outstanding request, whether they were valid or not.
        public var responsesReceived = 0
        /// Write Commands encoded for the bearer.
        public var commandsSent = 0
        /// Values pushed by notifications (each entry of a Multiple Handle Value Notification counts).
        public var notificationsReceived = 0
        public var indicationsReceived = 0
        /// Confirmations and answers to the peer's requests.
        public var repliesSent = 0
        /// PDUs ignored: responses with no request outstanding, malformed pushes, unknown opcodes, commands.
        public var ignoredPDUs = 0
        /// Pushed values no subscriber wanted (counted by the connection that owns the subscriptions).
        public var unsubscribedValuesDropped = 0

        public init() {}
    }
}

extension GATTError {
    /// The error a caller gets when its task is cancelled while the procedure is queued or running.
    /// `GATTError` has no case for cancellation yet; this is the one place that picks the stand-in.
    static func cancelled(_ procedure: String) -> GATTError {
        .unsupported("cancelled: the task waiting for \(procedure) was cancelled")
    }
}
