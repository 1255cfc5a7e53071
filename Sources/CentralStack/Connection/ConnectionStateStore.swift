import Foundation
import Synchronization

/// Where the central keeps its ``ConnectionSnapshot`` between runs of the app. Saved on every change; loaded once
/// at start, when only a state younger than ``ConnectionRestoration/maximumAge`` is restored.
public protocol ConnectionStateStore: Sendable {
    /// Saves the snapshot, stamped with the wall-clock time `at`. Throws ``ConnectionStoreError`` when the
    /// state could not be written (a full disk, a missing directory); the previous state is then left as it was.
    func save(_ snapshot: ConnectionSnapshot, at: Date) throws(ConnectionStoreError)
    /// The saved state and when it was saved; nil when nothing was saved. A damaged or unreadable state throws.
    func load() throws(ConnectionStoreError) -> SavedConnectionState?
}

/// A snapshot as it was saved.
public struct SavedConnectionState: Sendable, Hashable, Codable {
    /// The format of the file, for later changes.
    public var version: Int
    public var savedAt: Date
    public var snapshot: ConnectionSnapshot

    public static let currentVersion = 1

    public init(snapshot: ConnectionSnapshot, savedAt: Date) {
        version = Self.currentVersion
        self.savedAt = savedAt
        self.snapshot = snapshot
    }
}

/// Why a state could not be saved or loaded, with where.
public struct ConnectionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What a start-up made of the saved state: restored, or why not. The central always starts; at worst afresh.
public enum ConnectionRestoration: Sendable, Hashable, CustomStringConvertible {
    case restored(ConnectionSnapshot, age: Duration)
    /// Nothing was saved.
    case nothingSaved
    /// Saved too long ago (or in the future: a clock that jumped); not restored.
    case tooOld(age: Duration)
    /// The saved state could not be read; not restored.
    case unreadable(String)

    /// The case study's rule: a state saved more than an hour ago is stale (the board may have moved, been
    /// re-paired or reset).
    public static let maximumAge: Duration = .seconds(3600)

    /// Loads from `store` and decides, with `now` from the caller's wall clock.
    public static func load(from store: any ConnectionStateStore, now: Date) -> Self {
        let saved: SavedConnectionState?
        do { saved = try store.load() } catch { return .unreadable(error.message) }
        guard let saved else { return .nothingSaved }
        let seconds = now.timeIntervalSince(saved.savedAt)
        let age = Duration.milliseconds(Int64((seconds * 1000).rounded()))
        guard seconds >= 0, age < maximumAge else { return .tooOld(age: age) }
        return .restored(saved.snapshot, age: age)
    }

    /// The snapshot to restore, if any.
    public var snapshot: ConnectionSnapshot? {
        if case let .restored(snapshot, _) = self { return snapshot }
        return nil
    }

    public var description: String {
        switch self {
        case let .restored(snapshot, age): "restored \(snapshot), saved \(Int(age.seconds)) s ago"
        case .nothingSaved: "no saved state: starting afresh"
        case let .tooOld(age):
            age < .zero
                ? "the saved state is dated \(Int(-age.seconds)) s in the future: not restored, starting afresh"
                : "the saved state is \(Int(age.seconds)) s old (the limit is \(Int(Self.maximumAge.seconds)) s): "
                    + "not restored, starting afresh"
        case let .unreadable(why): "the saved state is unreadable (\(why)): not restored, starting afresh"
        }
    }
}

/// A ``ConnectionStateStore`` in one JSON file, replaced atomically: the new state goes to a temporary file in
/// the same directory, is flushed to the disk (fsync), then renamed over the old one, so a crash at any moment
/// leaves either the old state or the new one, never a mix.
public struct FileConnectionStateStore: ConnectionStateStore {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func save(_ snapshot: ConnectionSnapshot, at date: Date) throws(ConnectionStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(SavedConnectionState(snapshot: snapshot, savedAt: date)) } catch {
            throw ConnectionStoreError("could not encode the connection state: \(error)")
        }
        let manager = FileManager.default
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        do {
            guard manager.createFile(atPath: temporary.path, contents: nil) else {
                throw ConnectionStoreError(
                    "could not create \(temporary.path) to save the connection state (does the directory exist, "
                        + "and is it writable?)")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            do {
                try handle.write(contentsOf: data)
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            // rename(2), which Foundation brings on every platform: it replaces the old file in one step.
            // (FileManager's replaceItemAt is not atomic everywhere and fails on Linux when the target exists.)
            guard rename(temporary.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw ConnectionStoreError("could not replace \(url.path) with the new connection state: \(reason)")
            }
            // The rename is an entry in the directory: flushing the directory makes it survive a power loss too.
            // Best effort: a file system that cannot fsync a directory still has the renamed file.
            if let directory = FileHandle(forReadingAtPath: url.deletingLastPathComponent().path) {
                try? directory.synchronize()
                try? directory.close()
            }
        } catch let error as ConnectionStoreError {
            try? manager.removeItem(at: temporary)
            throw error
        } catch {
            try? manager.removeItem(at: temporary)
            throw ConnectionStoreError(
                "could not save the connection state to \(url.path): \(error.localizedDescription)")
        }
    }

    public func load() throws(ConnectionStoreError) -> SavedConnectionState? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw ConnectionStoreError("could not read \(url.path): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let saved: SavedConnectionState
        do { saved = try decoder.decode(SavedConnectionState.self, from: data) } catch {
            throw ConnectionStoreError(
                "\(url.path) is not a saved connection state (\(data.count) bytes): \(Self.reason(error))")
        }
        guard saved.version == SavedConnectionState.currentVersion else {
            throw ConnectionStoreError(
                "\(url.path) has format version \(saved.version); this build reads version \(SavedConnectionState.currentVersion)"
            )
        }
        if let peripheral = saved.snapshot.peripheral, saved.snapshot.peripheralAddress == nil {
            throw ConnectionStoreError("\(url.path): '\(peripheral)' is not a Bluetooth device address")
        }
        return saved
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "invalid JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): "the key '\(key.stringValue)' is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: "\(error)"
        }
    }
}

/// A store in memory, for tests and for a central that need not survive its process.
public final class InMemoryConnectionStateStore: ConnectionStateStore {
    private let saved = Mutex<SavedConnectionState?>(nil)
    public init() {}
    public func save(_ snapshot: ConnectionSnapshot, at date: Date) throws(ConnectionStoreError) {
        saved.withLock { $0 = SavedConnectionState(snapshot: snapshot, savedAt: date) }
    }
    public func load() throws(ConnectionStoreError) -> SavedConnectionState? { saved.withLock { $0 } }
}
