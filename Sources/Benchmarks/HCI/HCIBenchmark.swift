import BLECore
import BenchCore
import Foundation
import Orchestrator
import Radios

/// blerig's central against Bumble's, side by side, in one run (`blerig bench hci`): one rootcanal (1 ms tick)
/// and one Bumble peripheral (`peripheral.py`), then each central in turn against that same peripheral, one at a
/// time on a controller of its own:
///
/// Three centrals take their turn: blerig's on the benchmark's path and on the campaign's (see
/// ``BlerigCentralBenchmark/Path``), and Bumble's. Each times its handshakes in two halves, in the order blerig,
/// campaign, Bumble, Bumble, campaign, blerig, so that a machine growing slower or faster over the run weighs on all
/// three alike; the second half runs steps 2 and 3 below too. Then the socket floor (``SocketFloor``) replays the
/// packets of one more handshake of blerig's benchmark path, recorded after its timed ones, `handshakes` times on a
/// bare socket: what the kernel charges any central for them. Then the host alone
/// (``HostReplay``) runs blerig's benchmark central on a controller played back from a recording, in this process,
/// ``hostReplaysPerHandshake`` times as many handshakes: what blerig's host code costs with no socket. Each central:
///
/// 1. `handshakes` handshakes, each connect → Exchange MTU → all primary services → the characteristics of each
///    → the descriptors of notify_source → its CCCD written ("subscribed"), then disconnect and wait for the link
///    to go down. Timed: connect (request → link up) and handshake (request → subscribed); counted: the ATT
///    requests of each; and the central process's CPU time over the whole loop. One untimed handshake comes first
///    in each half, so that the first-time work of a fresh stack or process is counted in neither.
/// 2. On one more link set up the same way: `writes` write requests to `echo`, each timed, each after a random wait
///    of up to one tick (``Options/phaseSeed``).
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

            // Each central's handshakes in two halves, in the order blerig, campaign, Bumble, Bumble, campaign,
            // blerig: a machine that grows slower or faster over the run weighs on the three alike, where one block
            // each would hand whatever changed between them to whichever ran last. The second half runs the writes
            // and the stream too.
            let spec = try HCITransportSpec.parse(rootcanal.hciSpec)
            let first = options.handshakes / 2
            var half = options
            half.handshakes = first
            var second = options
            second.handshakes = options.handshakes - first
            second.writes = options.writeCount
            let captures = FileManager.default.temporaryDirectory.path
            func blerigCentral(_ options: Options, path: BlerigCentralBenchmark.Path, tail: Bool)
                -> BlerigCentralBenchmark
            {
                BlerigCentralBenchmark(hci: spec, target: address, options: options, path: path, tail: tail)
            }
            var earlier: (blerig: CentralMeasurement, campaign: CentralMeasurement, bumble: CentralMeasurement)?
            if first > 0 {
                progress("blerig's central: \(first) handshakes (first half)")
                let blerig = try await blerigCentral(half, path: .benchmark, tail: false).run()
                progress("blerig's campaign path: \(first) handshakes (first half)")
                let campaign = try await blerigCentral(half, path: .campaign(capturesRoot: captures), tail: false).run()
                progress("Bumble's central: \(first) handshakes (first half)")
                let (bumble, _) = try await runBumble(
                    half, venv: venv, peers: peers, hci: rootcanal.hciSpec, target: ready.address, tail: false)
                earlier = (blerig, campaign, bumble)
            }
            let rest = "\(second.handshakes) handshakes\(first > 0 ? " (second half)" : ""), "
                + "\(options.writeCount) writes, stream"
            progress("Bumble's central: \(rest)")
            let (bumbleRest, versions) = try await runBumble(
                second, venv: venv, peers: peers, hci: rootcanal.hciSpec, target: ready.address, tail: true)
            var bumble = bumbleRest
            progress("blerig's campaign path: \(rest)")
            var campaign = try await blerigCentral(second, path: .campaign(capturesRoot: captures), tail: true).run()
            progress("blerig's central: \(rest)")
            let recorder = TrafficRecorder()
            var benchmarkPath = blerigCentral(second, path: .benchmark, tail: true)
            benchmarkPath.recorder = recorder
            var blerig = try await benchmarkPath.run()
            if let earlier {
                blerig = earlier.blerig.followed(by: blerig)
                campaign = earlier.campaign.followed(by: campaign)
                bumble = earlier.bumble.followed(by: bumble)
            }

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
                handshakes: options.handshakes, tickMilliseconds: options.tick.milliseconds, versions: versions,
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

    /// Runs `bench_central.py` to its RESULT line: `options.handshakes` handshakes, then the writes and the stream
    /// unless `tail` is false.
    private func runBumble(
        _ options: Options, venv: InteropVenv, peers: String, hci: String, target: String, tail: Bool
    ) async throws -> (CentralMeasurement, [String: String]) {
        let script = try PeerScript.start(
            "bench_central.py", in: peers, venv: venv,
            [
                "--hci", hci, "--target", target, "--handshakes", "\(options.handshakes)",
                "--writes", "\(options.writeCount)", "--write-size", "\(options.writeSize)",
                "--tick-ms", "\(options.tick.milliseconds)", "--phase-seed", "\(options.phaseSeed)",
                "--stream-ms", "\(Int(options.streamDuration.milliseconds))", "--mtu", "\(options.mtu)",
            ] + (tail ? [] : ["--handshakes-only"]))
        do {
            // A handshake takes well under a second; the stream its duration.
            let limit =
                Duration.seconds(60) + .seconds(2) * (options.handshakes + options.writeCount) + options.streamDuration
            let json = try await script.line("RESULT", timeout: limit)
            let measurement = try script.decode(CentralMeasurement.self, from: json)
            let versions = try script.decode(BumbleVersions.self, from: json).versions
            await script.stop()
            return (measurement, versions)
        } catch {
            await script.stop()
            throw error
        }
    }

    /// peripheral.py's READY line (the part used here).
    struct PeripheralReady: Decodable {
        var address: String
    }

    struct BumbleVersions: Decodable {
        var versions: [String: String]
    }
}
