import CBlueZ
import Glibc

/// socket(2) types and flags. CBlueZ's shim includes <sys/socket.h> for libbluetooth, so glibc's `__socket_type`
/// enum is defined in both CBlueZ and Glibc, and a file that imports only Glibc sometimes cannot find `SOCK_STREAM`
/// (depending on which files the compiler batches together). This file imports both; the others use these.
enum SocketType {
    static let stream = Int32(SOCK_STREAM.rawValue)
    static let seqpacket = Int32(SOCK_SEQPACKET.rawValue)
    static let raw = Int32(SOCK_RAW.rawValue)
    static let closeOnExec = Int32(SOCK_CLOEXEC.rawValue)
    static let nonBlocking = Int32(SOCK_NONBLOCK.rawValue)
}
