import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directory a run writes its reports into, `<out>/<run-id>/`. It is created by the run itself, before
/// anything else happens, so a bad `--out` fails in a moment; the run id carries a random suffix and the
/// directory is created with `mkdir(2)`, which refuses an existing one, so two runs never share a directory.
public struct RunDirectory: Sendable {
    /// `virtual-farm-20261123T114502Z-s42-3fa9`
    public let runID: String
    /// The directory's path.
    public let path: String

    /// Creates `root` if needed and a fresh run directory in it, with `captures/` and `console/`.
    static func create(under root: String, rig: String, seed: UInt64?, at date: Date) throws(OutputError) -> Self {
        guard !root.isEmpty else {
            throw OutputError(path: "--out ''", message: "the report directory must be a path, not empty")
        }
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw OutputError(path: root, message: Self.reason(creating: root, error))
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw OutputError(path: root, message: "not a directory")
        }
        var generator = SystemRandomNumberGenerator()
        let stem = stem(rig: rig, seed: seed, at: date)
        for _ in 0..<64 {
            let suffix = String(UInt16.random(in: 0...UInt16.max, using: &generator), radix: 16)
            let runID = stem + "-" + String(repeating: "0", count: 4 - suffix.count) + suffix
            let path = (root as NSString).appendingPathComponent(runID)
            if mkdir(path, 0o755) == 0 {
                for sub in ["captures", "console"] {
                    let subPath = (path as NSString).appendingPathComponent(sub)
                    guard mkdir(subPath, 0o755) == 0 else { throw OutputError(path: subPath, errno: errno) }
                }
                return RunDirectory(runID: runID, path: path)
            }
            guard errno == EEXIST else { throw OutputError(path: path, errno: errno) }
        }
        throw OutputError(path: root, message: "64 run directories named \(stem)-* already exist")
    }

    /// The path of a file in the run directory.
    func file(_ relative: String) -> String { (path as NSString).appendingPathComponent(relative) }

    /// `virtual-farm-20261123T114502Z-s42`: rig, UTC start, seed (absent on hardware).
    static func stem(rig: String, seed: UInt64?, at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let stamp = "\(c.year ?? 0)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
        return "\(rig)-\(stamp)" + (seed.map { "-s\($0)" } ?? "")
    }

    private static func reason(creating path: String, _ error: any Error) -> String {
        // Foundation's message names the path again; say what is in the way instead.
        var prefix = ""
        for component in (path as NSString).pathComponents {
            prefix = prefix.isEmpty ? component : (prefix as NSString).appendingPathComponent(component)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory), !isDirectory.boolValue {
                return "\(prefix) is a file, not a directory"
            }
        }
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(code)))
        }
        return (error as NSError).localizedDescription
    }
}
