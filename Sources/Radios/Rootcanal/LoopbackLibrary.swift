import Foundation

/// libBlerigLoopback.so, the library blerig preloads into rootcanal so that it listens on 127.0.0.1 only:
/// rootcanal 1.10.0 binds its ports to every address and has no flag to change that (see
/// Sources/CLoopbackBind/loopback_bind.c). On the HCI port it also sends each packet as one TCP segment
/// (``h4PortVariable``). `swift build` puts the library next to the blerig executable.
public struct LoopbackLibrary: Sendable, Hashable {
    public static let fileName = "libBlerigLoopback.so"
    /// Names rootcanal's HCI port to the library, which sends each H4 packet there as one TCP segment, with
    /// TCP_NODELAY (Sources/CLoopbackBind/h4_whole_packets.c).
    public static let h4PortVariable = "BLERIG_H4_PORT"
    /// Names the library explicitly, for an installation that keeps it elsewhere.
    public static let environmentVariable = "BLERIG_LOOPBACK_LIBRARY"

    public var path: String

    public init(path: String) { self.path = path }

    /// Finds the library: `$BLERIG_LOOPBACK_LIBRARY`, else next to the running executable, else in `../lib` from
    /// it. Without it blerig does not start rootcanal at all: a controller without authentication must not listen
    /// on the network.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: String = LoopbackLibrary.currentExecutable
    ) throws(RootcanalError) -> LoopbackLibrary {
        if let named = environment[environmentVariable], !named.isEmpty {
            guard FileManager.default.isReadableFile(atPath: named) else {
                throw RootcanalError(
                    .notInstalled, "\(environmentVariable)=\(named) is not a readable file",
                    fix: "point it at \(fileName) (built by `swift build`), or unset it")
            }
            return LoopbackLibrary(path: named)
        }
        let directory = (executable as NSString).deletingLastPathComponent
        let candidates = [
            (directory as NSString).appendingPathComponent(fileName),
            ((directory as NSString).appendingPathComponent("../lib") as NSString).appendingPathComponent(fileName),
        ]
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw RootcanalError(
                .notInstalled,
                "cannot keep rootcanal on 127.0.0.1: \(fileName) is not in \(candidates.joined(separator: " or "))",
                fix: "build it with `swift build` (it is the BlerigLoopback product), or set \(environmentVariable)")
        }
        return LoopbackLibrary(path: (found as NSString).standardizingPath)
    }

    /// `environment` with the library first in `LD_PRELOAD`.
    public func preloading(into environment: [String: String]) -> [String: String] {
        var environment = environment
        let existing = environment["LD_PRELOAD"].map { $0.isEmpty ? "" : ":" + $0 } ?? ""
        environment["LD_PRELOAD"] = path + existing
        return environment
    }

    public static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
