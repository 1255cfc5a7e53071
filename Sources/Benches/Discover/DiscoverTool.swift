import BLECore
import BenchCore
import BoardControl
import CentralStack
import Orchestrator

/// `blerig discover` without the argument parsing: the USB serial ports plugged in, each with its profile guess and
/// hub port; with a radio, each board on a hub that switches per port is told apart on the air by switching its
/// port off and seeing which advertiser goes quiet. The result is a rig skeleton (``RigSkeleton``).
public struct DiscoverTool: Sendable {
    public var radio: RadioSpec?
    /// How long each scan listens, before and after the cut.
    public var scan: Duration
    public var paths: SystemPaths
    public var hubControl: any HubControl
    public var clock: any RigClock

    public static let defaultScan: Duration = .seconds(4)

    public init(
        radio: RadioSpec?, scan: Duration = DiscoverTool.defaultScan, paths: SystemPaths = SystemPaths(),
        hubControl: any HubControl = UsbfsHubControl(), clock: any RigClock = WallClock()
    ) {
        self.radio = radio
        self.scan = scan
        self.paths = paths
        self.hubControl = hubControl
        self.clock = clock
    }

    /// The USB serial ports, each with what its ids and its place say (no radio needed).
    public func boards() -> [DiscoveredBoard] {
        let hubs = USBHubInventory(paths: paths)
        return SerialPortInventory(paths: paths).ports().filter { $0.usbDevice != nil }.map { port in
            let place = port.usbDevice.flatMap { HubPlace(usbDevice: $0) }
            let switching = place.flatMap { hubs.hub(at: $0.hub) }.flatMap { hub in
                (try? hubControl.hubDescriptor(of: hub)).flatMap { PowerSwitching(hubDescriptor: $0) }
            }
            return DiscoveredBoard(
                port: port, guess: ProfileGuess.guess(port), place: place, switchable: switching.map { $0 == .perPort })
        }
    }

    /// ``boards()``, and with a radio each switchable board's air address: scan, port off, scan, port on.
    public func run(radios: any RadioOpening, progress: @escaping @Sendable (String) -> Void) async throws
        -> [DiscoveredBoard]
    {
        var boards = boards()
        guard let radio else { return boards }
        let (scan, paths, clock) = (scan, paths, clock)
        let hubControl = hubControl
        let targets = boards.indices.filter { boards[$0].switchable == true && boards[$0].place != nil }
        if targets.isEmpty { progress("no board sits on a hub that switches its port alone: no address to find") }
        let places = targets.map { boards[$0].place! }
        let outcomes = try await radios.withCentral(radio) { central, _ in
            var outcomes: [QuietAdvertiser.Outcome] = []
            for place in places {
                let port = HubPowerSwitch(
                    location: place.hub, port: place.port, paths: paths, control: hubControl, clock: clock)
                progress("\(place): scanning \(scan.seconds) s, switching it off, scanning again")
                let before = await AdvertiserScan.run(central: central, duration: scan).devices.map(QuietAdvertiser.Heard.init)
                try await port.off()
                let after: [QuietAdvertiser.Heard]
                do {
                    after = await AdvertiserScan.run(central: central, duration: scan).devices.map(QuietAdvertiser.Heard.init)
                    try await port.on()
                } catch {
                    try? await port.on()
                    throw error
                }
                let outcome = QuietAdvertiser.find(before: before, after: after)
                progress("\(place): \(outcome)")
                outcomes.append(outcome)
            }
            return outcomes
        }
        for (index, outcome) in zip(targets, outcomes) { boards[index].air = outcome }
        return boards
    }
}
