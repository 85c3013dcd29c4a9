#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small secret file read only when it is this user's own and private, as ssh treats its keys:
/// owned by the effective uid, no group or other permission bits, a regular file. Anyone else who
/// could write it could choose its contents, and anyone who could read it could use them. A
/// symlink is followed, as ssh follows one, and the file it names is checked; the link itself
/// must be this user's (or root's), so no one else can point it at a file of their choosing.
package enum PrivateFile {
    /// Why a file that exists is not used.
    package enum Problem: Sendable, Equatable {
        /// Owned by the first uid, not by this process's effective uid (the second).
        case owner(uid_t, uid_t)
        /// These permission bits let others read or change it.
        case mode(UInt32)
        /// A symlink owned by this uid (the first), neither this process's effective uid (the
        /// second) nor root.
        case symlinkOwner(uid_t, uid_t)
        case notAFile
    }

    /// What is at the path.
    package enum Contents: Sendable, Equatable {
        case missing
        case refused(Problem)
        case bytes([UInt8])
    }

    /// Reads at most `maxBytes` of `path` when it is private; a failure of another kind (no
    /// permission, a folder on the way missing) throws as `AtomicFile.read` would.
    package static func read(path: String, maxBytes: Int = 4096) throws -> Contents {
        var link = stat()
        if RawArguments.withCPath(path, { lstat($0, &link) }) == 0, link.st_mode & S_IFMT == S_IFLNK,
           link.st_uid != geteuid(), link.st_uid != 0 {
            return .refused(.symlinkOwner(link.st_uid, geteuid()))
        }
        let fd = RawArguments.withCPath(path) { cPath in retryingEINTR { open(cPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } }
        if fd < 0 {
            if errno == ENOENT { return .missing }
            return try AtomicFile.read(path: path, maxBytes: maxBytes).map { .bytes($0) } ?? .missing
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return try AtomicFile.read(path: path, maxBytes: maxBytes).map { .bytes($0) } ?? .missing }
        guard st.st_mode & S_IFMT == S_IFREG else { return .refused(.notAFile) }
        guard st.st_uid == geteuid() else { return .refused(.owner(st.st_uid, geteuid())) }
        guard st.st_mode & 0o077 == 0 else { return .refused(.mode(UInt32(st.st_mode & 0o7777))) }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        let n = bytes.withUnsafeMutableBytes { buffer in retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) } }
        guard n >= 0 else { return try AtomicFile.read(path: path, maxBytes: maxBytes).map { .bytes($0) } ?? .missing }
        return .bytes(Array(bytes[..<n]))
    }
}
