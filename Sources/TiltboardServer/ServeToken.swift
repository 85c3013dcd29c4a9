import Foundation
import TiltboardLinux

/// The secret a client beyond loopback must show: 128 random bits in hex, kept in `serve-token`
/// (mode 0600) in the profile's folder, so it survives restarts and the service's state directory
/// holds it.
public enum ServeToken {
    public static let fileName = "serve-token"

    /// The token file for the profile at `profilePath`.
    public static func path(forProfile profilePath: String) -> String {
        (profilePath as NSString).deletingLastPathComponent + "/" + fileName
    }

    /// The stored token, or a new one written atomically with mode 0600 when there is none, it is
    /// unreadable as a token, or `renew` asks for a new one.
    public static func loadOrCreate(path: String, renew: Bool) throws -> (token: String, created: Bool) {
        if !renew, let bytes = try AtomicFile.read(path: path, maxBytes: 4096) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if isWellFormed(text) { return (text, false) }
        }
        let token = make()
        try AtomicFile.write(Array((token + "\n").utf8), to: path, permissions: 0o600, keepBackup: false)
        return (token, true)
    }

    /// 32 lower-case hex digits.
    static func isWellFormed(_ s: String) -> Bool {
        s.utf8.count == 32 && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
    }
}
