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
        var searched: [String] = []
        var directory = URL(filePath: start, directoryHint: .isDirectory).standardizedFileURL
        while true {
            let candidate = InteropVenv(directory: directory.appending(path: directoryName).path(percentEncoded: false))
            if FileManager.default.isExecutableFile(atPath: candidate.python) { return candidate }
            searched.append(candidate.directory)
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { break }
            directory = parent
        }
        throw RootcanalError(
            .notInstalled,
            "rootcanal is not installed: \(environmentVariable) is not set and there is no \(directoryName)/bin/python "
                + "in \(searched.joined(separator: ", "))",
            fix: "run `\(installCommand)` in the blerig checkout")
    }
}
