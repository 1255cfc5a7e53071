/// The Attribute Protocol (Core 5.4 Vol 3 Part F): opcodes, error codes and PDUs.
public enum ATT {
    /// The default and minimum ATT_MTU on an LE link (Vol 3 Part F §3.2.8).
    public static let defaultMTU: UInt16 = 23
    /// The largest ATT_MTU a client may ask for here: one 251-byte LL payload minus the 4-byte L2CAP header.
    public static let maximumMTU: UInt16 = 517
    /// How long a request may wait for its response before the bearer is considered dead (§3.3.3).
    public static let transactionTimeout: Duration = .seconds(30)
    /// The largest attribute value (§3.2.9).
    public static let maximumAttributeValueLength = 512

    /// An ATT opcode (§3.3.1): bits 0–5 the method, bit 6 the command flag, bit 7 the signature flag.
    public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let errorResponse = Self(rawValue: 0x01)
        public static let exchangeMTURequest = Self(rawValue: 0x02)
        public static let exchangeMTUResponse = Self(rawValue: 0x03)
        public static let findInformationRequest = Self(rawValue: 0x04)
        public static let findInformationResponse = Self(rawValue: 0x05)
        public static let findByTypeValueRequest = Self(rawValue: 0x06)
        public static let findByTypeValueResponse = Self(rawValue: 0x07)
        public static let readByTypeRequest = Self(rawValue: 0x08)
        public static let readByTypeResponse = Self(rawValue: 0x09)
        public static let readRequest = Self(rawValue: 0x0A)
        public static let readResponse = Self(rawValue: 0x0B)
        public static let readBlobRequest = Self(rawValue: 0x0C)
        public static let readBlobResponse = Self(rawValue: 0x0D)
        public static let readMultipleRequest = Self(rawValue: 0x0E)
        public static let readMultipleResponse = Self(rawValue: 0x0F)
        public static let readByGroupTypeRequest = Self(rawValue: 0x10)
        public static let readByGroupTypeResponse = Self(rawValue: 0x11)
        public static let writeRequest = Self(rawValue: 0x12)
        public static let writeResponse = Self(rawValue: 0x13)
        public static let prepareWriteRequest = Self(rawValue: 0x16)
        public static let prepareWriteResponse = Self(rawValue: 0x17)
        public static let executeWriteRequest = Self(rawValue: 0x18)
        public static let executeWriteResponse = Self(rawValue: 0x19)
        public static let handleValueNotification = Self(rawValue: 0x1B)
        public static let handleValueIndication = Self(rawValue: 0x1D)
        public static let handleValueConfirmation = Self(rawValue: 0x1E)
        public static let readMultipleVariableRequest = Self(rawValue: 0x20)
        public static let readMultipleVariableResponse = Self(rawValue: 0x21)
        public static let multipleHandleValueNotification = Self(rawValue: 0x23)
        public static let writeCommand = Self(rawValue: 0x52)
        public static let signedWriteCommand = Self(rawValue: 0xD2)

        /// Commands (bit 6) never get a response, not even an error.
        public var isCommand: Bool { rawValue & 0x40 != 0 }
        /// The peer answers a PDU with this opcode (Core 5.4 Vol 3 Part F §3.4): the requests with a response or
        /// an Error Response, and the indication with its confirmation.
        public var isAnswered: Bool {
            switch self {
            case .exchangeMTURequest, .findInformationRequest, .findByTypeValueRequest, .readByTypeRequest,
                .readRequest, .readBlobRequest, .readMultipleRequest, .readByGroupTypeRequest, .writeRequest,
                .prepareWriteRequest, .executeWriteRequest, .readMultipleVariableRequest, .handleValueIndication:
                true
            default: false
            }
        }
        /// Bit 7: the PDU ends in a 12-byte authentication signature.
        public var isSigned: Bool { rawValue & 0x80 != 0 }

        /// "ATT " and the name, for decoding errors: made once per opcode, since a PDU is decoded for every packet
        /// and only a malformed one needs it.
        var decodingContext: String { Self.decodingContexts[Int(rawValue)] }

        private static let decodingContexts = (0...255).map { "ATT " + Opcode(rawValue: UInt8($0)).name }

        public var name: String {
            switch self {
            case .errorResponse: "Error Response"
            case .exchangeMTURequest: "Exchange MTU Request"
            case .exchangeMTUResponse: "Exchange MTU Response"
            case .findInformationRequest: "Find Information Request"
            case .findInformationResponse: "Find Information Response"
            case .findByTypeValueRequest: "Find By Type Value Request"
            case .findByTypeValueResponse: "Find By Type Value Response"
            case .readByTypeRequest: "Read By Type Request"
            case .readByTypeResponse: "Read By Type Response"
            case .readRequest: "Read Request"
            case .readResponse: "Read Response"
            case .readBlobRequest: "Read Blob Request"
            case .readBlobResponse: "Read Blob Response"
            case .readMultipleRequest: "Read Multiple Request"
            case .readMultipleResponse: "Read Multiple Response"
            case .readByGroupTypeRequest: "Read By Group Type Request"
            case .readByGroupTypeResponse: "Read By Group Type Response"
            case .writeRequest: "Write Request"
            case .writeResponse: "Write Response"
            case .prepareWriteRequest: "Prepare Write Request"
            case .prepareWriteResponse: "Prepare Write Response"
            case .executeWriteRequest: "Execute Write Request"
            case .executeWriteResponse: "Execute Write Response"
            case .handleValueNotification: "Handle Value Notification"
            case .handleValueIndication: "Handle Value Indication"
            case .handleValueConfirmation: "Handle Value Confirmation"
            case .readMultipleVariableRequest: "Read Multiple Variable Request"
            case .readMultipleVariableResponse: "Read Multiple Variable Response"
            case .multipleHandleValueNotification: "Multiple Handle Value Notification"
            case .writeCommand: "Write Command"
            case .signedWriteCommand: "Signed Write Command"
            default: "opcode 0x" + String(rawValue, radix: 16, uppercase: true)
            }
        }

        public var description: String { name }
    }

    /// An ATT error code carried by an Error Response (§3.4.1.1, and Core Specification Supplement Part B for
    /// the common profile range 0xE0–0xFF).
    public struct ErrorCode: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let invalidHandle = Self(rawValue: 0x01)
        public static let readNotPermitted = Self(rawValue: 0x02)
        public static let writeNotPermitted = Self(rawValue: 0x03)
        public static let invalidPDU = Self(rawValue: 0x04)
        public static let insufficientAuthentication = Self(rawValue: 0x05)
        public static let requestNotSupported = Self(rawValue: 0x06)
        public static let invalidOffset = Self(rawValue: 0x07)
        public static let insufficientAuthorization = Self(rawValue: 0x08)
        public static let prepareQueueFull = Self(rawValue: 0x09)
        public static let attributeNotFound = Self(rawValue: 0x0A)
        public static let attributeNotLong = Self(rawValue: 0x0B)
        public static let encryptionKeySizeTooShort = Self(rawValue: 0x0C)
        public static let invalidAttributeValueLength = Self(rawValue: 0x0D)
        public static let unlikelyError = Self(rawValue: 0x0E)
        public static let insufficientEncryption = Self(rawValue: 0x0F)
        public static let unsupportedGroupType = Self(rawValue: 0x10)
        public static let insufficientResources = Self(rawValue: 0x11)
        public static let databaseOutOfSync = Self(rawValue: 0x12)
        public static let valueNotAllowed = Self(rawValue: 0x13)
        public static let writeRequestRejected = Self(rawValue: 0xFC)
        public static let cccdImproperlyConfigured = Self(rawValue: 0xFD)
        public static let procedureAlreadyInProgress = Self(rawValue: 0xFE)
        public static let outOfRange = Self(rawValue: 0xFF)

        /// 0x80–0x9F are defined by the application (the higher-layer profile).
        public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }

        public var name: String {
            switch self {
            case .invalidHandle: "Invalid Handle"
            case .readNotPermitted: "Read Not Permitted"
            case .writeNotPermitted: "Write Not Permitted"
            case .invalidPDU: "Invalid PDU"
            case .insufficientAuthentication: "Insufficient Authentication"
            case .requestNotSupported: "Request Not Supported"
            case .invalidOffset: "Invalid Offset"
            case .insufficientAuthorization: "Insufficient Authorization"
            case .prepareQueueFull: "Prepare Queue Full"
            case .attributeNotFound: "Attribute Not Found"
            case .attributeNotLong: "Attribute Not Long"
            case .encryptionKeySizeTooShort: "Encryption Key Size Too Short"
            case .invalidAttributeValueLength: "Invalid Attribute Value Length"
            case .unlikelyError: "Unlikely Error"
            case .insufficientEncryption: "Insufficient Encryption"
            case .unsupportedGroupType: "Unsupported Group Type"
            case .insufficientResources: "Insufficient Resources"
            case .databaseOutOfSync: "Database Out Of Sync"
            case .valueNotAllowed: "Value Not Allowed"
            case .writeRequestRejected: "Write Request Rejected"
            case .cccdImproperlyConfigured: "Client Characteristic Configuration Descriptor Improperly Configured"
            case .procedureAlreadyInProgress: "Procedure Already in Progress"
            case .outOfRange: "Out of Range"
            default: isApplicationError ? "Application Error" : "Reserved"
            }
        }

        /// `0x05 (Insufficient Authentication)`.
        public var description: String {
            let hex = String(rawValue, radix: 16, uppercase: true)
            return "0x\(hex.count < 2 ? "0" : "")\(hex) (\(name))"
        }
    }
}
