#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `write(2)` until every byte is out: retries after a signal, continues after a short write.
enum Descriptor {
    /// Writes all of `bytes` to `descriptor`; returns how many went out and the `errno` that stopped it, if any.
    static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> (written: Int, errno: Int32?) {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return (offset - bytes.startIndex, errno)
            }
            if written == 0 { return (offset - bytes.startIndex, EIO) }
            offset += written
        }
        return (bytes.count, nil)
    }
}
