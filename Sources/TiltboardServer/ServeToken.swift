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
        // At the file a symlink names, the link kept.
        try AtomicFile.write(Array((token + "\n").utf8), to: NotARegularFile.writableTarget(path), permissions: 0o600, keepBackup: false)
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

    package init(path: String, problem: PrivateFile.Problem) {
        self.path = path
        self.problem = problem
    }

    /// What is wrong, without the fix (which the program words: how to make a new token).
    package var description: String {
        let shown = Self.shown(path)
        switch problem {
        case let .owner(owner, me): return "the token file \(shown) belongs to uid \(owner), not to this user (uid \(me)), so it is not used"
        case let .mode(mode): return "the token file \(shown) has mode \(String(mode, radix: 8)), which lets others read or change it, so it is not used"
        case let .symlinkOwner(owner, me): return "the token file \(shown) is a symlink of uid \(owner), not of this user (uid \(me)) or root, so it is not used"
        case .notAFile: return "the token file \(shown) is not a regular file, so it is not used"
        }
    }

    /// The path as messages show it: at most 200 characters, its end kept.
    package static func shown(_ path: String) -> String { path.count > 200 ? "…" + path.suffix(199) : path }

    /// Not a regular file: as every file that is not one (`FileProblem.notRegular`); the others
    /// are a matter of who may read or change it.
    package var category: ErrorCategory { problem == .notAFile ? FileProblem.notRegular.category : .permissionDenied }
}
