import DeviceProfiles
import Foundation
import Synchronization

/// A firmware image on disk, read a window at a time: the sender never holds more than one read-ahead block
/// (``blockSize``) of it, whatever the image's size (the case study's app buffered the whole image and peaked at
/// 220 MB). Opening it streams the file once for its size and CRC-32.
public final class OTAImageFile: Sendable {
    public let path: String
    public let size: UInt32
    public let crc32: UInt32
    public let version: FirmwareVersion
    /// Bytes read from the file at once.
    public static let blockSize = 64 * 1024

    private struct Reader {
        var handle: FileHandle
        /// The bytes of `[blockStart, blockStart + block.count)`.
        var block: [UInt8] = []
        var blockStart = 0
    }

    private let reader: Mutex<Reader>

    /// Opens `path`; `version` is what START announces and what Firmware Revision must show after the update.
    public init(path: String, version: FirmwareVersion) throws(OTAError) {
        self.path = path
        self.version = version
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .image("cannot open the image \(path) for reading")
        }
        var crc = CRC32()
        var total = 0
        do {
            while let chunk = try handle.read(upToCount: Self.blockSize), !chunk.isEmpty {
                chunk.withUnsafeBytes { crc.update($0) }
                total += chunk.count
            }
            try handle.seek(toOffset: 0)
        } catch {
            throw .image("reading the image \(path): \(error.localizedDescription)")
        }
        guard total > 0, total <= Int(UInt32.max) else {
            throw .image("the image \(path) has \(total) bytes; an OTA image has 1 … \(UInt32.max)")
        }
        size = UInt32(total)
        crc32 = crc.value
        reader = Mutex(Reader(handle: handle))
    }

    deinit { reader.withLock { try? $0.handle.close() } }

    public var image: OTASender.Image { OTASender.Image(size: size, crc32: crc32, version: version) }

    /// The payload of frame `seq`: the image bytes at `seq × maxPayload`, at most `maxPayload` of them.
    public func payload(seq: UInt32, maxPayload: Int) throws(OTAError) -> ArraySlice<UInt8> {
        let offset = Int(seq) * maxPayload
        let length = min(maxPayload, Int(size) - offset)
        guard length > 0 else { throw .image("frame \(seq) lies beyond the end of the \(size)-byte image \(path)") }
        return try reader.withLock { (reader: inout Reader) throws(OTAError) -> ArraySlice<UInt8> in
            if offset < reader.blockStart || offset + length > reader.blockStart + reader.block.count {
                let start = offset
                let count = max(Self.blockSize, length)
                do {
                    try reader.handle.seek(toOffset: UInt64(start))
                    let data = try reader.handle.read(upToCount: count) ?? Data()
                    reader.block = [UInt8](data)
                    reader.blockStart = start
                } catch {
                    throw .image("reading frame \(seq) of \(path): \(error.localizedDescription)")
                }
                guard reader.block.count >= length else {
                    throw .image("the image \(path) changed on disk: frame \(seq) is short")
                }
            }
            let from = offset - reader.blockStart
            return reader.block[from..<(from + length)]
        }
    }
}

/// Why an OTA update could not be carried out; every case says what and where.
public enum OTAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The image file could not be read.
    case image(String)
    /// The board refused or failed the update.
    case failed(OTASender.Failure)
    /// The board could not be reached again to go on (it resumes from its persisted state next time).
    case unreachable(attempts: Int, lastError: String)
    /// A GATT or session error that is not a lost link.
    case session(String)

    public var description: String {
        switch self {
        case let .image(why): why
        case let .failed(failure): "\(failure)"
        case let .unreachable(attempts, last):
            "the board could not be reached after \(attempts) attempt(s): \(last) (the update resumes from the board's state next time)"
        case let .session(why): why
        }
    }
}
