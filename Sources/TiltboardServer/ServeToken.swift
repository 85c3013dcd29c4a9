import Foundation
import TiltboardCore
import TiltboardLinux

/// The secret a client beyond loopback must show: 128 random bits in hex, kept in `serve-token`
/// (mode 0600) in the profile's folder, so it survives restarts and the service's state directory
/// holds it.
package enum ServeToken {
    package static let fileName = "serve-token"

    /// The token file for the profile at `profilePath`.
    package static func path(forProfile profilePath: String) -> String {
        (profilePath as NSString).deletingLastPathComponent + "/" + fileName
    }

    /// The stored token, or a new one written atomically with mode 0600 when there is none, it is
    /// unreadable as a token, or `renew` asks for a new one.
    ///
    /// A stored file is used only when it is this user's own (owned by the effective uid) and
    /// private (no group or other permission bits), as ssh does with its keys: anyone else who
    /// could write it could choose the token, and anyone who could read it could use it. Otherwise
    /// `ServeTokenFileError` says how to fix it; `renew` replaces such a file with a new one.
    package static func loadOrCreate(path: String, renew: Bool) throws -> (token: String, created: Bool) {
        if !renew, let bytes = try readPrivate(path: path) {
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if isWellFormed(text) { return (text, false) }
        }
        let token = make()
        try AtomicFile.write(Array((token + "\n").utf8), to: path, permissions: 0o600, keepBackup: false)
        return (token, true)
    }

    /// The file's bytes when it is ours and private (`PrivateFile`); nil when there is none.
    static func readPrivate(path: String) throws -> [UInt8]? {
        switch try PrivateFile.read(path: path) {
        case .missing: return nil
        case let .refused(problem): throw ServeTokenFileError(path: path, problem: problem)
        case let .bytes(bytes): return bytes
        }
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

/// A token file that is not this user's own private file: refused, with how to fix it.
package struct ServeTokenFileError: CategorizedError, Sendable {
    package var path: String
    package var problem: PrivateFile.Problem

    package var description: String {
        let shown = path.count > 200 ? "…" + path.suffix(199) : path
        switch problem {
        case let .owner(owner, me):
            return "the token file \(shown) belongs to uid \(owner), not to this user (uid \(me)), so it is not used: remove it (rm \(shown)) or start with --new-token, and a new one is made"
        case let .mode(mode):
            return "the token file \(shown) has mode \(String(mode, radix: 8)), which lets others read or change it, so it is not used: chmod 600 \(shown)"
        case .symlink:
            return "the token file \(shown) is a symlink, so it is not used: remove it (rm \(shown)) or start with --new-token, and a new one is made"
        case .notAFile:
            return "the token file \(shown) is not a regular file, so it is not used: remove it, and a new one is made"
        }
    }

    package var category: ErrorCategory { .permissionDenied }
}
