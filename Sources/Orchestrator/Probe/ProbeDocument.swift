import BLECore
import CentralStack
import Foundation

/// `blerig probe --json`: one JSON document. Every key is always present (null when it does not apply), keys are
/// sorted, and handles are numbers:
///
/// ```json
/// {
///   "complete" : true,
///   "device" : { "address" : "24:0A:C4:12:1A:2B", "address_type" : "public", "connectable" : true,
///                "name" : "ESP-Point-1a2b", "rssi" : -55 },
///   "disconnect_reason" : "0x16 (connection terminated by local host)",
///   "mtu" : 247,
///   "services" : [ { "characteristics" : [ { "declaration_handle" : 2, "descriptors" : [],
///       "discovery_error" : null, "name" : "Manufacturer Name String", "properties" : [ "read" ],
///       "uuid" : "2A29", "value" : { "error" : null, "hex" : "457370…", "length" : 17,
///       "text" : "Espressif Systems" }, "value_handle" : 3 } ],
///     "discovery_error" : null, "end_handle" : 9, "name" : "Device Information", "start_handle" : 1,
///     "uuid" : "180A" } ],
///   "stopped" : null
/// }
/// ```
/// `value` is null for a characteristic without the Read property (it was not read). A refused read has
/// `"error" : {"code" : 2, "name" : "Read Not Permitted"}` and null `hex`, `length` and `text`; `text` is null also
/// when the bytes are not printable UTF-8. `stopped` says why the walk ended early; `complete` is false then.
struct ProbeDocument: Encodable {
    let report: Probe.Report

    private enum Keys: String, CodingKey {
        case complete, device, mtu, services, stopped
        case disconnectReason = "disconnect_reason"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(report.table.isComplete, forKey: .complete)
        try container.encode(Device(report.advertisement), forKey: .device)
        try container.encode(report.disconnect.description, forKey: .disconnectReason)
        try container.encode(Int(report.mtu), forKey: .mtu)
        try container.encode(report.table.services.map(Service.init), forKey: .services)
        try container.encode(report.table.stopped?.description, forKey: .stopped)
    }

    /// The document as text: pretty-printed, keys sorted.
    static func json(_ report: Probe.Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(ProbeDocument(report: report)), as: UTF8.self)
    }

    struct Device: Encodable {
        let advertisement: Advertisement
        init(_ advertisement: Advertisement) { self.advertisement = advertisement }

        private enum Keys: String, CodingKey {
            case address, connectable, name, rssi
            case addressType = "address_type"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(AttributeText.address(advertisement.address), forKey: .address)
            try container.encode(AttributeText.addressType(advertisement.address), forKey: .addressType)
            try container.encode(advertisement.connectable, forKey: .connectable)
            try container.encode(advertisement.data.localName, forKey: .name)
            try container.encode(Int(advertisement.rssi), forKey: .rssi)
        }
    }

    struct Service: Encodable {
        let service: GATTTable.Service
        init(_ service: GATTTable.Service) { self.service = service }

        private enum Keys: String, CodingKey {
            case characteristics, name, uuid
            case discoveryError = "discovery_error"
            case startHandle = "start_handle"
            case endHandle = "end_handle"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(service.characteristics.map(Characteristic.init), forKey: .characteristics)
            try container.encode(service.discoveryError.map(ATTError.init), forKey: .discoveryError)
            try container.encode(Int(service.handles.upperBound), forKey: .endHandle)
            try container.encode(UUIDNames.name(of: service.uuid), forKey: .name)
            try container.encode(Int(service.handles.lowerBound), forKey: .startHandle)
            try container.encode(service.uuid.description, forKey: .uuid)
        }
    }

    struct Characteristic: Encodable {
        let characteristic: GATTTable.Characteristic
        init(_ characteristic: GATTTable.Characteristic) { self.characteristic = characteristic }

        private enum Keys: String, CodingKey {
            case descriptors, name, properties, uuid, value
            case declarationHandle = "declaration_handle"
            case discoveryError = "discovery_error"
            case valueHandle = "value_handle"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(Int(characteristic.declarationHandle), forKey: .declarationHandle)
            try container.encode(characteristic.descriptors.map(Descriptor.init), forKey: .descriptors)
            try container.encode(characteristic.discoveryError.map(ATTError.init), forKey: .discoveryError)
            try container.encode(UUIDNames.name(of: characteristic.uuid), forKey: .name)
            try container.encode(AttributeText.properties(characteristic.properties), forKey: .properties)
            try container.encode(characteristic.uuid.description, forKey: .uuid)
            try container.encode(characteristic.value.map(Value.init), forKey: .value)
            try container.encode(Int(characteristic.valueHandle), forKey: .valueHandle)
        }
    }

    struct Descriptor: Encodable {
        let descriptor: GATTTable.Descriptor
        init(_ descriptor: GATTTable.Descriptor) { self.descriptor = descriptor }

        private enum Keys: String, CodingKey { case handle, name, uuid, value }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(Int(descriptor.handle), forKey: .handle)
            try container.encode(UUIDNames.name(of: descriptor.uuid), forKey: .name)
            try container.encode(descriptor.uuid.description, forKey: .uuid)
            try container.encode(Value(descriptor.value), forKey: .value)
        }
    }

    /// A read's result: the bytes (hex, length, text) or the ATT error.
    struct Value: Encodable {
        let result: GATTTable.ReadResult
        init(_ result: GATTTable.ReadResult) { self.result = result }

        private enum Keys: String, CodingKey { case error, hex, length, text }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            switch result {
            case let .value(bytes):
                try container.encodeNil(forKey: .error)
                try container.encode(bytes.hexString.uppercased(), forKey: .hex)
                try container.encode(bytes.count, forKey: .length)
                try container.encode(AttributeText.printable(bytes), forKey: .text)
            case let .error(code):
                try container.encode(ATTError(code), forKey: .error)
                try container.encodeNil(forKey: .hex)
                try container.encodeNil(forKey: .length)
                try container.encodeNil(forKey: .text)
            }
        }
    }

    /// `{"code": 2, "name": "Read Not Permitted"}`.
    struct ATTError: Encodable {
        let code: Int
        let name: String
        init(_ error: ATT.ErrorCode) {
            code = Int(error.rawValue)
            name = error.name
        }
    }
}
