#if canImport(Glibc)
import Glibc
#endif

/// What tells a changed file from the one seen before, for a watch that polls: the inode, size
/// and modification time of the file a path names, following symlinks (an atomic save at the
/// target is a new inode there, and the link itself does not change), and of the link itself
/// (a link pointed elsewhere is a change too).
package struct FileStamp: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modifiedNs: Int64
    /// The symlink's own inode and modification time, when `path` is one.
    package var link: [Int64]?

    /// The stamp of what `path` names; nil when it names nothing (or a dangling link).
    package init?(path: String) {
        var st = stat()
        guard RawArguments.withCPath(path, { stat($0, &st) }) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedNs = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        var own = stat()
        if RawArguments.withCPath(path, { lstat($0, &own) }) == 0, own.st_mode & S_IFMT == S_IFLNK {
            link = [Int64(own.st_ino), Int64(own.st_mtim.tv_sec) * 1_000_000_000 + Int64(own.st_mtim.tv_nsec)]
        }
    }
}

/// Where a symlink leads.
package enum SymlinkTarget {
    /// The file `path` names when `path` itself is a symlink (followed to its end, as the kernel
    /// does), else `path` unchanged; also unchanged when the link leads nowhere.
    package static func resolved(_ path: String) -> String {
        var own = stat()
        guard RawArguments.withCPath(path, { lstat($0, &own) }) == 0, own.st_mode & S_IFMT == S_IFLNK,
              let real = RawArguments.withCPath(path, { realpath($0, nil) }) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
