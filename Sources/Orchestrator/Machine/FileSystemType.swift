import Foundation

/// The type of the filesystem a path is on (`ext4`, `tmpfs`, `xfs`), from the mount table: benchmarks that write
/// thousands of files say where they wrote them, because filesystems differ there. On ext4 without a journal, for
/// one, a new inode skips one by one the inodes freed in the last minute, which a run that follows another's
/// cleanup pays for.
public enum FileSystemType {
    /// The type of the mount holding `path` (symbolic links resolved) in `/proc/self/mounts`; nil where unknown.
    public static func of(_ path: String) -> String? {
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        return of(path, mounts: table)
    }

    /// The type of the longest mount point in `mounts` (the `/proc/self/mounts` format) that holds `path`.
    static func of(_ path: String, mounts: String) -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var best: (point: String, type: String)?
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = unescaped(fields[1])
            let holds = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            // A later mount on the same point hides the earlier one.
            if holds, point.count >= (best?.point.count ?? 0) { best = (point, String(fields[2])) }
        }
        return best?.type
    }

    /// The mount table writes space, tab, newline and backslash in a mount point as octal escapes (`\040`).
    static func unescaped(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
