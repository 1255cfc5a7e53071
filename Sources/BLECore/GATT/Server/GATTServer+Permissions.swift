extension GATTServer {
    /// What an attribute allows and what it requires of the link (Vol 3 Part F §3.2.5). A requirement applies only
    /// together with the access it qualifies: `.readEncrypted` without `.read` still gives 0x02 Read Not Permitted.
    public struct Permissions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let read = Self(rawValue: 0x0001)
        public static let write = Self(rawValue: 0x0002)
        /// Reading needs an encrypted link, else 0x0F Insufficient Encryption.
        public static let readEncrypted = Self(rawValue: 0x0010)
        /// Reading needs an authenticated (MITM-protected) encrypted link, else 0x05 Insufficient Authentication.
        public static let readAuthenticated = Self(rawValue: 0x0020)
        /// Reading needs the application's authorization, else 0x08 Insufficient Authorization.
        public static let readAuthorized = Self(rawValue: 0x0040)
        public static let writeEncrypted = Self(rawValue: 0x0100)
        public static let writeAuthenticated = Self(rawValue: 0x0200)
        public static let writeAuthorized = Self(rawValue: 0x0400)

        public static let readWrite: Self = [.read, .write]

        /// Readable when `properties` has read; writable when it has write, write without response or signed
        /// writes; no security requirements.
        public init(_ properties: GATT.CharacteristicProperties) {
            self = []
            if properties.contains(.read) { insert(.read) }
            if !properties.isDisjoint(with: [.write, .writeWithoutResponse, .authenticatedSignedWrites]) {
                insert(.write)
            }
        }
    }

    /// The security of one connection, which the owner updates as pairing and encryption progress
    /// (``GATTServer/setSecurity(_:for:)``).
    public struct SecurityState: Hashable, Sendable, CustomStringConvertible {
        /// The link is encrypted.
        public var isEncrypted: Bool
        /// The link is encrypted with an authenticated (MITM-protected) key. Implies `isEncrypted`.
        public var isAuthenticated: Bool
        /// The application has authorized this client.
        public var isAuthorized: Bool

        public init(encrypted: Bool = false, authenticated: Bool = false, authorized: Bool = false) {
            isEncrypted = encrypted || authenticated
            isAuthenticated = authenticated
            isAuthorized = authorized
        }

        /// An unencrypted, unauthorized link: the state of every new connection.
        public static let open = Self()

        public var description: String {
            let level = isAuthenticated ? "authenticated" : (isEncrypted ? "encrypted" : "unencrypted")
            return level + (isAuthorized ? ", authorized" : "")
        }
    }

    /// Read or write, for permission checks.
    enum AccessMode { case read, write }
}

extension GATTServer.Permissions {
    /// The ATT error for this access on a link with `security`, or nil when it is allowed. The order follows what
    /// a client can repair: not permitted at all, then authentication, encryption, authorization.
    func check(_ mode: GATTServer.AccessMode, _ security: GATTServer.SecurityState) -> ATT.ErrorCode? {
        let (allowed, encrypted, authenticated, authorized): (Self, Self, Self, Self) =
            switch mode {
            case .read: (.read, .readEncrypted, .readAuthenticated, .readAuthorized)
            case .write: (.write, .writeEncrypted, .writeAuthenticated, .writeAuthorized)
            }
        guard contains(allowed) else { return mode == .read ? .readNotPermitted : .writeNotPermitted }
        if contains(authenticated), !security.isAuthenticated { return .insufficientAuthentication }
        if contains(encrypted), !security.isEncrypted { return .insufficientEncryption }
        if contains(authorized), !security.isAuthorized { return .insufficientAuthorization }
        return nil
    }
}
