import Foundation

/// How samples are stored: raw IEEE 754 binary32, little-endian, four bytes a sample, in the order taken. A
/// 32-bit float keeps about seven significant digits, more than any latency or rate blerig measures has, and
/// rank tests (Mann-Whitney) and bootstrap intervals need the values themselves, not a histogram's buckets.
public enum SampleEncoding {
    /// The name stored beside the bytes, so that a later encoding can sit beside this one.
    public static let name = "f32le"

    public static func encode(_ values: [Double]) -> Data {
        var data = Data(count: values.count * 4)
        data.withUnsafeMutableBytes { raw in
            for (index, value) in values.enumerated() {
                raw.storeBytes(of: Float(value).bitPattern.littleEndian, toByteOffset: index * 4, as: UInt32.self)
            }
        }
        return data
    }

    /// Decodes bytes written by ``encode(_:)``; nil when the length is not a multiple of four.
    public static func decode(_ data: Data) -> [Double]? {
        guard data.count % 4 == 0 else { return nil }
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { index in
                Double(
                    Float(
                        bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                )
            }
        }
    }
}
