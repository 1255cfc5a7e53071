/// A reading as the ingest receives it: the JSON body of `POST /readings` is `{"readings": [IngestReading]}`.
public struct IngestReading: Codable, Sendable, Hashable {
    /// `serial/seq`: the ingest keeps one reading per key.
    public var key: String
    public var board: String
    public var seq: UInt32
    /// The 14-byte record, lowercase hex.
    public var payload: String

    public init(key: String, board: String, seq: UInt32, payload: String) {
        self.key = key
        self.board = board
        self.seq = seq
        self.payload = payload
    }

    public init(_ item: QueuedReading) {
        self.init(key: item.key, board: item.board, seq: item.seq, payload: Hex.encode(item.payload))
    }
}

/// A batch upload request.
public struct IngestBatch: Codable, Sendable, Hashable {
    public var readings: [IngestReading]
    public init(readings: [IngestReading]) { self.readings = readings }
}

/// The ingest's answer to a batch: which keys it now holds (newly or already) and which it refused, with why.
/// Only keys in `accepted` may be deleted from the queue.
public struct UploadReceipt: Codable, Sendable, Hashable {
    public struct Rejection: Codable, Sendable, Hashable {
        public var key: String
        public var reason: String
        public init(key: String, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// Keys the ingest stored with this batch or held already.
    public var accepted: [String]
    /// Of `accepted`, the keys it held already (a redelivery it deduped).
    public var duplicates: [String]
    public var rejected: [Rejection]

    public init(accepted: [String], duplicates: [String] = [], rejected: [Rejection] = []) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.rejected = rejected
    }
}

/// Why a whole batch failed (nothing in it counts as confirmed).
public struct UploadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where the worker sends batches: the HTTP ingest, or the virtual farm's simulated one.
public protocol Uploader: Sendable {
    func upload(_ batch: IngestBatch) async throws(UploadError) -> UploadReceipt
}

/// Lowercase hex without Foundation.
public enum Hex {
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let high = nibble(chars[i]), let low = nibble(chars[i + 1]) else { return nil }
            out.append(high << 4 | low)
            i += 2
        }
        return out
    }
}
