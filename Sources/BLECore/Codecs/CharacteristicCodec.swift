/// A standard characteristic value with a fixed wire format (GATT Specification Supplement): the UUID it lives
/// under, a decoder that throws ``DecodingError`` on anything the specification does not allow, and an encoder.
/// Profile clients decode notifications with it; board models in the virtual farm encode with it.
public protocol CharacteristicCodec: Hashable, Sendable {
    /// The characteristic UUID this value belongs to.
    static var uuid: BluetoothUUID { get }

    /// Decodes a complete characteristic value. Never traps.
    init(decoding bytes: some Collection<UInt8>) throws(DecodingError)

    /// The characteristic value's bytes.
    var encoded: [UInt8] { get }
}
