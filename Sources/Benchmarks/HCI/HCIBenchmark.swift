import BLECore
import BenchCore
import Foundation
import Orchestrator
import Radios

/// blerig's central against Bumble's, side by side, in one run (`blerig bench hci`): one rootcanal (1 ms tick)
/// and one Bumble peripheral (`peripheral.py`), then each central in turn against that same peripheral, one at a
/// time on a controller of its own:
///
/// Three centrals take turns: blerig's on the benchmark's path and on the campaign's (see
/// ``BlerigCentralBenchmark/Path``), and Bumble's (``BumbleCentral``). All three are opened first, each warmed by one
/// untimed handshake at the start of each part, and stay open for the whole run. Each times its handshakes (step 1
/// below) in ``Options/parts`` parts, the centrals taking turns by part (blerig, campaign, Bumble, then Bumble,
/// campaign, blerig, and so on), then its writes (step 2) in as many parts the same way, so that a machine growing
/// slower or faster, or a burst of another guest's load, weighs on all three alike. Then each runs step 3. Then the
/// socket floor (``SocketFloor``) replays the packets of one more handshake of blerig's benchmark path, recorded after
/// its timed ones, `handshakes` times on a bare socket: what the kernel charges any central for them. Then the host
/// alone (``HostReplay``) runs blerig's benchmark central on a controller played back from a recording, in this
/// process, ``hostReplaysPerHandshake`` times as many handshakes: what blerig's host code costs with no socket. Each
/// central:
///
/// 1. `handshakes` handshakes, each connect → Exchange MTU → all primary services → the characteristics of each
///    → the descriptors of notify_source → its CCCD written ("subscribed"), then disconnect and wait for the link
///    to go down. Timed: connect (request → link up) and handshake (request → subscribed); counted: the ATT
///    requests of each; and the central process's CPU time over each part's loop.
/// 2. `writes` write requests to `echo`, each timed, each after a random wait of up to one tick
///    (``Options/phaseSeed``), on one more link set up the same way for each part.
/// 3. The STREAM command for `streamDuration` at ATT_MTU − 3 bytes per value: value bytes per second, and the
///    sequence numbers that never came.
///
/// blerig's central runs in this process (``BlerigCentralBenchmark``), so its CPU time is this process's
/// (getrusage) less what this process spent reading rootcanal's and the peripheral's output meanwhile
/// (``SupervisedProcess/outputReadingCPU``); Bumble's runs as `bench_central.py` in a child process and reports
/// `time.process_time()`.
public struct HCIBenchmark: Sendable {
    public struct Options: Sendable {
        public var handshakes = 50
        /// The parts each central's handshakes are timed in, the centrals taking turns (at most one per handshake).
        public var parts = 10
        /// Write requests to time; the same as `handshakes` unless set.
        public var writes: Int?
        public var writeSize = 20
        public var streamDuration: Duration = .seconds(3)
        public var mtu = 247
        /// rootcanal's tick.
        public var tick: Duration = .milliseconds(1)
        /// Seeds the random wait, a uniform part of ``tick``, before each timed write in both centrals: rootcanal
        /// delivers on its tick, and a write sent right after the previous response would measure two ticks less the
        /// central's own loop rather than its host's send and receive paths.
        public var phaseSeed: UInt64 = 1
        /// Where the interop venv (rootcanal and Bumble) is; nil finds it as ``InteropVenv/locate(environment:from:)``
        /// does.
        public var venv: InteropVenv?
        /// Where the Bumble peer scripts are; nil finds the shipped `share/blerig/peers` (``PeerScripts``).
        public var peers: String?

        public init() {}

        var writeCount: Int { writes ?? handshakes }
    }

    public var options: Options

    public init(options: Options = Options()) { self.options = options }

    /// Runs both centrals and returns the comparison; `progress` hears what is happening, a line at a time.
    public func run(progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> HCIBenchmarkReport {
        let venv: InteropVenv
        let peers: String
        do {
            venv = try options.venv ?? InteropVenv.locate()
            peers = try options.peers ?? PeerScripts.locate()
        } catch let error as RootcanalError {
            throw BenchmarkError("\(error)")
        }
        var rootcanalOptions = RootcanalProcess.Options()
        rootcanalOptions.timerPeriod = options.tick
        let rootcanal: RootcanalProcess
        do {
            rootcanal = try await RootcanalProcess.start(rootcanalOptions)
        } catch {
            throw BenchmarkError("rootcanal did not start: \(error)")
        }
        progress("rootcanal \(rootcanal.hciSpec), tick \(options.tick.milliseconds) ms (set on its test channel)")
        var peripheral: PeerScript?
        do {
            let script = try PeerScript.start(
                "peripheral.py", in: peers, venv: venv, ["--hci", rootcanal.hciSpec, "--name", "blerig-bench"])
            peripheral = script
            let ready = try script.decode(
                PeripheralReady.self, from: try await script.line("READY", timeout: .seconds(30)))
            guard let address = DeviceAddress("\(ready.address)/random") else {
                throw BenchmarkError("peripheral.py printed an address that is not one: \(ready.address)")
            }
            progress("peripheral.py advertising as \(address)")

            // The three centrals stay open for the whole run, each warmed by one untimed handshake, and take turns
            // by parts: blerig, campaign, Bumble, then Bumble, campaign, blerig, and so on. A machine that grows
            // slower or faster, or a burst of another guest's load, weighs on the three alike, where one block each
            // would hand whatever changed between them to whichever ran then.
            let spec = try HCITransportSpec.parse(rootcanal.hciSpec)
            let captures = FileManager.default.temporaryDirectory.path
            func blerigCentral(_ path: BlerigCentralBenchmark.Path) -> BlerigCentralBenchmark {
                BlerigCentralBenchmark(hci: spec, target: address, options: options, path: path)
            }
            progress("opening the three centrals: blerig's, its campaign path, and Bumble's (bench_central.py)")
            let blerigOpened = try await blerigCentral(.benchmark).open()
            var opened: [BlerigCentralBenchmark.Opened] = [blerigOpened]
            var bumbleCentral: BumbleCentral?
            let measured: (blerig: CentralMeasurement, campaign: CentralMeasurement, bumble: CentralMeasurement)
            let versions: [String: String]
            let recorder = TrafficRecorder()
            do {
                let campaignOpened = try await blerigCentral(.campaign(capturesRoot: captures)).open()
                opened.append(campaignOpened)
                let bumbleOpened = try await BumbleCentral.start(
                    options, venv: venv, peers: peers, hci: rootcanal.hciSpec, target: ready.address)
                bumbleCentral = bumbleOpened
                let handshakeTurns: [(Int) async throws -> CentralMeasurement] = [
                    { try await blerigOpened.part(handshakes: $0) },
                    { try await campaignOpened.part(handshakes: $0) },
                    { try await bumbleOpened.part(handshakes: $0) },
                ]
                let writeTurns: [(Int) async throws -> CentralMeasurement] = [
                    { try await blerigOpened.writes($0) },
                    { try await campaignOpened.writes($0) },
                    { try await bumbleOpened.writes($0) },
                ]
                var parts: [[CentralMeasurement]] = [[], [], []]
                for (what, total, turns) in [
                    ("handshakes", options.handshakes, handshakeTurns), ("writes", options.writeCount, writeTurns),
                ] {
                    let sizes = Self.partSizes(handshakes: total, parts: options.parts)
                    progress(
                        "each central's \(total) \(what) in \(sizes.count) parts, in turn: blerig, campaign, Bumble, "
                            + "then Bumble, campaign, blerig, …")
                    for (index, size) in sizes.enumerated() {
                        for central in Self.turnOrder(part: index) {
                            parts[central].append(try await turns[central](size))
                        }
                    }
                }
                progress("Bumble's central: stream")
                let (bumbleTail, bumbleVersions) = try await bumbleOpened.tail()
                progress("blerig's campaign path: stream")
                let campaignTail = try await campaignOpened.tail()
                progress("blerig's central: stream")
                let blerigTail = try await blerigOpened.tail(recorder: recorder)
                versions = bumbleVersions
                func whole(_ index: Int, _ tail: CentralMeasurement) -> CentralMeasurement {
                    CentralMeasurement.joined(parts[index] + [tail]) ?? tail
                }
                measured = (whole(0, blerigTail), whole(1, campaignTail), whole(2, bumbleTail))
                await bumbleOpened.stop()
                for central in opened { try await central.close() }
            } catch {
                await bumbleCentral?.stop()
                for central in opened { try? await central.close() }
                throw error
            }
            let (blerig, campaign, bumble) = measured

            progress("the socket floor: blerig's handshake replayed \(options.handshakes) times with no host")
            guard case let .tcp(host, port) = try HCITransportSpec.parse(rootcanal.hciSpec) else {
                throw BenchmarkError("rootcanal's HCI port \(rootcanal.hciSpec) is not TCP")
            }
            let floor = try await SocketFloor(
                host: host, port: port, script: try HandshakeScript.recorded(recorder.recorded),
                handshakes: options.handshakes
            ).run()

            let replays = options.handshakes * Self.hostReplaysPerHandshake
            progress("the host alone: blerig's recorded handshake replayed \(replays) times in this process")
            let hostAlone = try await HostReplay(
                central: BlerigCentralBenchmark(
                    hci: try HCITransportSpec.parse(rootcanal.hciSpec), target: address, options: options),
                handshakes: replays
            ).run()

            await script.stop()
            await rootcanal.stop()
            return HCIBenchmarkReport(
                handshakes: options.handshakes,
                parts: Self.partSizes(handshakes: options.handshakes, parts: options.parts).count, tickMilliseconds: options.tick.milliseconds, versions: versions,
                blerig: blerig, campaign: campaign, bumble: bumble, socketFloor: floor,
                hostReplay: hostAlone)
        } catch {
            await peripheral?.stop()
            await rootcanal.stop()
            throw error
        }
    }

    /// The host replay runs this many handshakes for each timed one: each costs a fraction of a millisecond and no
    /// tick, and more of them steady the figure.
    public static let hostReplaysPerHandshake = 20

    /// How many handshakes (or writes) each part times: `handshakes` split into `parts` (at most one per handshake,
    /// at least one part) as evenly as they go, the larger parts first.
    public static func partSizes(handshakes: Int, parts: Int) -> [Int] {
        let count = max(1, min(parts, handshakes))
        return (0..<count).map { handshakes / count + ($0 < handshakes % count ? 1 : 0) }
    }

    /// The centrals' turns in part `index` (0 blerig, 1 campaign, 2 Bumble): forwards in even parts, backwards in
    /// odd ones, so that over every two parts each central has run once early and once late.
    public static func turnOrder(part index: Int) -> [Int] { index.isMultiple(of: 2) ? [0, 1, 2] : [2, 1, 0] }

    /// peripheral.py's READY line (the part used here).
    struct PeripheralReady: Decodable {
        var address: String
    }
}
