import Foundation

/// A PostgreSQL connection URL, as libpq reads it: `postgres://user:password@host:port/database`, or over a Unix
/// socket with the socket's directory as `host` (`postgres://user@/db?host=/run/postgresql`, or the directory
/// percent-encoded in the host part, `postgres://user@%2Frun%2Fpostgresql/db`). The socket file is
/// `<directory>/.s.PGSQL.<port>`.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    public enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int)
        /// The socket file's full path.
        case socket(path: String)
    }

    public var endpoint: Endpoint
    public var user: String
    public var password: String?
    public var database: String
    /// `sslmode=require` (or `verify-full`) asks for TLS; `disable` turns it off; else TLS when the server offers it.
    public var tls: TLSMode

    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public init(_ text: String) throws(HistoryError) {
        func bad(_ why: String) -> HistoryError {
            HistoryError(database: Self.redacted(text), message: "not a PostgreSQL URL: \(why)")
        }
        // URLComponents rejects a percent-encoded slash in the host, which libpq allows: take the host apart here.
        guard let schemeEnd = text.range(of: "://") else { throw bad("expected postgres://") }
        let rest = text[schemeEnd.upperBound...]
        let (authority, pathAndQuery) =
            rest.firstIndex(of: "/").map { (rest[..<$0], rest[$0...]) } ?? (rest, Substring(""))
        let (path, query) =
            pathAndQuery.firstIndex(of: "?").map {
                (pathAndQuery[..<$0], pathAndQuery[pathAndQuery.index(after: $0)...])
            }
            ?? (pathAndQuery, Substring(""))
        var userInfo = Substring("")
        var hostPort = authority
        if let at = authority.lastIndex(of: "@") {
            userInfo = authority[..<at]
            hostPort = authority[authority.index(after: at)...]
        }
        let userParts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var user = userParts.first.map { String($0).removingPercentEncoding ?? String($0) } ?? ""
        password = userParts.count > 1 ? String(userParts[1]).removingPercentEncoding : nil
        var host = String(hostPort)
        var port = 5432
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasPrefix("[") || hostPort[..<colon].hasSuffix("]") {
            guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                throw bad("the port '\(hostPort[hostPort.index(after: colon)...])' is not a number from 1 to 65535")
            }
            port = number
            host = String(hostPort[..<colon])
        }
        host = host.removingPercentEncoding ?? host
        database = String(path.dropFirst()).removingPercentEncoding ?? String(path.dropFirst())
        var tls = TLSMode.prefer
        for item in query.split(separator: "&") {
            let pair = item.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            guard pair.count == 2 else { throw bad("the parameter '\(item)' has no value") }
            switch pair[0] {
            case "host": host = pair[1]
            case "port":
                guard let number = Int(pair[1]), (1...65535).contains(number) else {
                    throw bad("port=\(pair[1]) is not a number from 1 to 65535")
                }
                port = number
            case "user": user = pair[1]
            case "password": password = pair[1]
            case "dbname": database = pair[1]
            case "sslmode":
                switch pair[1] {
                case "disable", "allow": tls = .disable
                case "prefer": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default: throw bad("sslmode=\(pair[1]) is not one of disable, prefer, require, verify-full")
                }
            default: throw bad("unknown parameter '\(pair[0])' (known: host, port, user, password, dbname, sslmode)")
            }
        }
        if user.isEmpty { user = ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres" }
        if database.isEmpty { database = user }
        if host.isEmpty { host = "/var/run/postgresql" }
        endpoint = host.hasPrefix("/") ? .socket(path: "\(host)/.s.PGSQL.\(port)") : .tcp(host: host, port: port)
        self.user = user
        self.tls = tls
    }

    /// The URL without its password.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port): "postgres://\(user)@\(host):\(port)/\(database)"
        case .socket(let path): "postgres://\(user)@/\(database)?host=\((path as NSString).deletingLastPathComponent)"
        }
    }

    /// `text` with any password replaced by `***`, for messages about a URL that did not parse.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@"),
            let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }
}
