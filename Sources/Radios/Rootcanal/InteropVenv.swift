import Foundation

/// The Python venv that holds rootcanal and Bumble for the interop tier, made by `make interop-deps`.
///
/// Found, in order: the directory named by `$BLERIG_INTEROP_VENV`; else `.venv-interop/` in the starting
/// directory or the nearest ancestor that has one (so it is found from anywhere inside a blerig checkout).
public struct InteropVenv: Sendable, Hashable {
    public static let environmentVariable = "BLERIG_INTEROP_VENV"
    public static let directoryName = ".venv-interop"
    /// The command that makes the venv, for messages.
    public static let installCommand = "make interop-deps"

    /// The venv's directory.
    public var directory: String
    /// The venv's interpreter.
    public var python: String { directory + "/bin/python" }

    public init(directory: String) { self.directory = directory }

    /// Where ``locate(environment:from:)`` looks without `$BLERIG_INTEROP_VENV`: `.venv-interop/` in `start` and
    /// in each of its ancestors up to `/`, nearest first. A relative `start` is taken from the current
    /// directory; when that cannot be known (it was deleted: `getcwd` fails) there is nowhere to look and the
    /// list is empty, rather than an endless climb through `..`.
    public static func candidates(from start: String) -> [InteropVenv] {
        let absolute: String
        if start.hasPrefix("/") {
            absolute = start
        } else {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else { return [] }
            let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard cwd.hasPrefix("/") else { return [] }
            absolute = start.isEmpty ? cwd : cwd + "/" + start
        }
        var result: [InteropVenv] = []
        var directory = URL(filePath: absolute, directoryHint: .isDirectory).standardizedFileURL
        while directory.path.hasPrefix("/") {
            result.append(InteropVenv(directory: directory.appending(path: directoryName).path(percentEncoded: false)))
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        return result
    }

    /// Finds the venv, or says where it looked and how to make one.
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        from start: String = FileManager.default.currentDirectoryPath
    ) throws(RootcanalError) -> InteropVenv {
        if let named = environment[environmentVariable], !named.isEmpty {
            let venv = InteropVenv(directory: named)
            guard FileManager.default.isExecutableFile(atPath: venv.python) else {
                throw RootcanalError(
                    .notInstalled, "\(environmentVariable)=\(named) has no \(venv.python)",
                    fix: "point it at a venv with rootcanal==1.10.0 and bumble==0.0.236, or unset it and run "
                        + "`\(installCommand)` in the blerig checkout")
            }
            return venv
        }
        let candidates = Self.candidates(from: start)
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate.python) {
            return candidate
        }
        guard !candidates.isEmpty else {
            throw RootcanalError(
                .notInstalled,
                "rootcanal is not installed: \(environmentVariable) is not set and the directory to search from "
                    + "('\(start)') cannot be resolved (was the current directory deleted?)",
                fix: "run blerig from inside the checkout after `\(installCommand)`, or set \(environmentVariable)")
        }
        throw RootcanalError(
            .notInstalled,
            "rootcanal is not installed: \(environmentVariable) is not set and there is no \(directoryName)/bin/python "
                + "in \(candidates.map(\.directory).joined(separator: ", "))",
            fix: "run `\(installCommand)` in the blerig checkout")
    }
}
