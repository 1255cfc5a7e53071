/// AES-CMAC (RFC 4493; NIST SP 800-38B with AES-128), the MAC of the Bluetooth security toolbox
/// (Core 5.4 Vol 3 Part H §2.2.5) and of the GATT Database Hash (Vol 3 Part G §7.3).
///
/// Bytes are in the order RFC 4493 writes them (most significant octet first). Bluetooth sends 128-bit values
/// least significant octet first, so a caller that puts a CMAC on the air reverses it (``GATTServer/Database``
/// does for the Database Hash).
public enum AESCMAC {
    /// The 16-byte tag of `message` under `key` (16 bytes).
    public static func tag(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let cipher = AES128(key: key)
        let (k1, k2) = subkeys(cipher)
        let blocks = max(1, (message.count + 15) / 16)
        let complete = !message.isEmpty && message.count % 16 == 0
        var last = Array(message[((blocks - 1) * 16)...])
        if complete {
            last = xor(last, k1)
        } else {
            last.append(0x80)
            last += [UInt8](repeating: 0, count: 16 - last.count)
            last = xor(last, k2)
        }
        var x = [UInt8](repeating: 0, count: 16)
        for i in 0..<(blocks - 1) {
            x = cipher.encrypt(xor(x, Array(message[(i * 16)..<(i * 16 + 16)])))
        }
        return cipher.encrypt(xor(x, last))
    }

    /// K1 and K2 (RFC 4493 §2.3): L = AES(K, 0), K1 = L·x, K2 = K1·x in GF(2^128).
    static func subkeys(_ cipher: AES128) -> ([UInt8], [UInt8]) {
        let l = cipher.encrypt([UInt8](repeating: 0, count: 16))
        let k1 = double(l)
        return (k1, double(k1))
    }

    /// Shifts a 128-bit big-endian value left by one and folds the carry back with R128 = 0x87.
    private static func double(_ value: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 {
            let next: UInt8 = i < 15 ? value[i + 1] >> 7 : 0
            out[i] = (value[i] << 1) | next
        }
        if value[0] & 0x80 != 0 { out[15] ^= 0x87 }
        return out
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] { zip(a, b).map { $0 ^ $1 } }
}
