import Glibc

/// Small file reads for sysfs, procfs and lock files, on Glibc alone: a sysfs attribute is one short line, read
/// whole each time (sysfs values are computed on read).
enum FileText {
    static func readBytes(_ path: String, limit: Int = 65_536) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while result.count < limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            result += buffer.prefix(count)
        }
        return result
    }

    /// The file's text without its trailing newline; nil when it cannot be read.
    static func read(_ path: String) -> String? {
        guard let bytes = readBytes(path) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Writes `text` to an existing file (a sysfs attribute); throws the errno of open or write.
    static func write(_ text: String, to path: String) throws(SystemCallError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .current("open \(path)") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw .current("write \(path)") }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The names in a directory, without `.` and `..`, sorted; empty when it cannot be read.
    static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The target of a symbolic link as written; nil when `path` is no link.
    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The canonical path (every link resolved); nil when some part does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
