import BLECore
import CentralStack
import DeviceProfiles
import Benches
import Foundation
import Synchronization

/// The sync path as the phone app runs it, as a process of its own (`blerig sync-agent`, hidden): connect to an
/// esp-point over a real radio, authenticate, pull its log into a persistent ``SyncQueue`` (STATUS, READ, commit,
/// ACK) and upload the queue to an HTTP ingest (POST, receipt, delete), round after round until the board's log
/// and the queue are both empty. Every step prints one progress line, so a crash test can kill the process with
/// SIGKILL after any of them and start it again: the queue file and the board are all that survive.
public enum SyncAgent {
    public struct Options: Sendable {
        /// A radio spec (`tcp:127.0.0.1:6402`, ...), as `--radio` takes it.
        public var radio: String
        public var board: DeviceAddress
        public var queuePath: String
        public var ingest: URL
        /// The 32-byte pairing key: the agent pairs with it when the board is in pairing mode, and authenticates
        /// with it otherwise (so a kill in the middle of pairing is survivable).
        public var key: [UInt8]
        /// Stop (sleep until killed) right after printing this many progress lines: a crash test's exact kill
        /// point.
        public var stallAfter: Int?
        public var rounds = 20

        public init(radio: String, board: DeviceAddress, queuePath: String, ingest: URL, key: [UInt8], stallAfter: Int?)
        {
            self.radio = radio
            self.board = board
            self.queuePath = queuePath
            self.ingest = ingest
            self.key = key
            self.stallAfter = stallAfter
        }
    }

    /// Runs the agent; `emit` gets each progress line. Returns when the board and the queue are empty.
    public static func run(_ options: Options, emit: @escaping @Sendable (String) -> Void) async throws {
        let lines = ProgressLines(stallAfter: options.stallAfter, emit: emit)
        let queue = try SyncQueue(path: options.queuePath)
        lines.say("opened queue pending=\(try queue.pendingCount())")
        try await RadioOpener.withCentral(spec: options.radio) { central, clock in
            let worker = SyncWorker(
                queue: queue, uploader: HTTPUploader(base: options.ingest), clock: clock,
                observe: { step in
                    switch step {
                    case let .uploading(count): lines.say("uploading \(count)")
                    case let .confirmed(keys, duplicates):
                        lines.say("confirmed \(keys.count) duplicates=\(duplicates.count)")
                    case let .deleted(count): lines.say("deleted \(count)")
                    case let .failed(count, dead, error): lines.say("failed \(count) dead=\(dead): \(error)")
                    }
                })
            for _ in 0..<options.rounds {
                try await worker.drain()
                let read = try await Handshake.withSession(
                    central: central, address: options.board, spec: .standard(.espPoint), connectTimeout: .seconds(10)
                ) { session in
                    let client = EspPointClient(session: session)
                    try await authenticate(client, key: options.key)
                    let serial = try await client.identity().serial
                    lines.say("connected serial=\(serial)")
                    let report = try await LogPuller.pull(
                        client: client, queue: queue, board: serial, now: { Date().timeIntervalSince1970 },
                        observe: { step in
                            switch step {
                            case .read: break
                            case let .committed(sequences):
                                lines.say("committed \(sequences.count) up_to=\(sequences.last ?? 0)")
                            case let .acknowledged(upTo): lines.say("acked up_to=\(upTo)")
                            }
                        })
                    return report.read
                }
                try await worker.drain()
                if read == 0, try queue.pendingCount() == 0 {
                    lines.say("done")
                    return
                }
            }
            throw SyncAgentError("the board still had readings after \(options.rounds) rounds")
        }
    }

    /// Authenticates with `key`, or pairs with it first when the board is in pairing mode.
    static func authenticate(_ client: EspPointClient, key: [UInt8]) async throws {
        do {
            try await client.authenticate(key: key)
        } catch {
            try await client.pair(key: key)
            try await client.authenticate(key: key)
        }
    }
}

/// Numbered progress lines; after `stallAfter` of them the agent stops and waits to be killed.
final class ProgressLines: Sendable {
    private let count = Mutex(0)
    let stallAfter: Int?
    let emit: @Sendable (String) -> Void

    init(stallAfter: Int?, emit: @escaping @Sendable (String) -> Void) {
        self.stallAfter = stallAfter
        self.emit = emit
    }

    func say(_ text: String) {
        let number = count.withLock { count in
            count += 1
            return count
        }
        emit("\(number) \(text)")
        if let stallAfter, number >= stallAfter {
            emit("stalled")
            // Blocks this thread (and with it the sync path) at exactly this step until SIGKILL arrives.
            while true { sleep(3600) }
        }
    }
}

public struct SyncAgentError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
