import BLECore
import CentralStack

/// Which advertiser a board is: the one heard while its hub port was on that falls silent once it is off.
public enum QuietAdvertiser {
    /// An advertiser as a scan heard it.
    public struct Heard: Sendable, Hashable {
        public var address: DeviceAddress
        public var name: String?
        public var reports: Int

        public init(address: DeviceAddress, name: String? = nil, reports: Int) {
            self.address = address
            self.name = name
            self.reports = reports
        }

        public init(_ device: ScanCollector.Device) {
            self.init(address: device.address, name: device.name, reports: device.reports)
        }
    }

    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case found(DeviceAddress, name: String?)
        /// Every advertiser heard before was still heard: the board does not advertise, or not within the scan.
        case noneWentQuiet
        /// Several went quiet at once (a board with two identities, or advertisers that were only passing).
        case several([DeviceAddress])
        /// Nothing was heard while the port was on.
        case nothingHeard

        public var description: String {
            switch self {
            case .found(let address, let name): "\(address)\(name.map { " '\($0)'" } ?? "") went quiet: that is the board"
            case .noneWentQuiet: "every advertiser heard before was still heard after"
            case .several(let addresses): "several went quiet: \(addresses.map(\.description).joined(separator: ", "))"
            case .nothingHeard: "nothing was advertising"
            }
        }
    }

    /// Reports a device needs before the cut to count as steadily heard, not as one that passed by.
    public static let minimumReports = 2

    /// Compares a scan with the port on (`before`) and one with it off (`after`): the steadily heard advertisers
    /// of `before` that `after` does not have.
    public static func find(before: [Heard], after: [Heard]) -> Outcome {
        let steady = before.filter { $0.reports >= minimumReports }
        guard !steady.isEmpty else { return .nothingHeard }
        let stillHeard = Set(after.map(\.address))
        let quiet = steady.filter { !stillHeard.contains($0.address) }
        switch quiet.count {
        case 0: return .noneWentQuiet
        case 1: return .found(quiet[0].address, name: quiet[0].name)
        default: return .several(quiet.map(\.address).sorted { $0.description < $1.description })
        }
    }
}
