#if canImport(Glibc)
import Glibc
#endif

/// Crash-safe whole-file writes: a reader (or a reboot) sees either the old or the new
/// contents, never a mix, a truncated file or no file at all.
///
/// `write` puts the bytes in a uniquely named temporary file next to the target
/// (`.<name>.tmp.<pid>.<random>`, opened with `O_CREAT|O_EXCL|O_NOFOLLOW`, so a planted
/// symlink is refused rather than written through), fsyncs it and renames it over the target,
/// then fsyncs the folder. If the target is itself a symlink, the link is replaced by a
/// regular file; the file it pointed to is left alone.
package enum AtomicFile {
    /// Replaces the file at `path` with `bytes`, creating missing parent folders (0755).
    ///
    /// With `keepBackup`, the previous contents stay as `<path>.bak`; the backup is made by
    /// hard-linking the old file under a temporary name and renaming that over `<path>.bak`,
    /// so `<path>` itself is never missing. Temporary files left by writers that were killed
    /// are removed on the next write; at most one temporary file exists per live writer.
    package static func write(_ bytes: [UInt8], to path: String, permissions: mode_t = 0o644,
                             keepBackup: Bool = true) throws {
        try write(bytes, to: path, permissions: permissions, keepBackup: keepBackup, temporarySuffix: nil)
    }

    /// `write` with a fixed temporary-name suffix instead of a random one, so tests can plant
    /// files where the temporaries will go.
    package static func write(_ bytes: [UInt8], to path: String, permissions: mode_t, keepBackup: Bool,
                              temporarySuffix: String?) throws {
        let (folder, name) = split(path)
        try refuseNonRegular(path)
        if keepBackup { try refuseNonRegular(path + ".bak") }
        try makeFolders(folder, for: path)
        removeStaleTemporaries(in: folder, name: name)

        if keepBackup {
            try backUp(path: path, folder: folder, name: name, suffix: temporarySuffix)
        }

        let temp = temporaryPath(folder: folder, name: name, suffix: temporarySuffix)
        let fd = RawArguments.withCPath(temp) { cTemp in retryingEINTR { open(cTemp, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_WRONLY, permissions) } }
        guard fd >= 0 else { throw AtomicFileError(path: path, step: .create(temp), errno: errno) }
        do {
            // The process umask would otherwise narrow the requested mode.
            guard fchmod(fd, permissions) == 0 else {
                throw AtomicFileError(path: path, step: .setPermissions(temp), errno: errno)
            }
            try writeAll(fd: fd, bytes: bytes, path: path, temp: temp)
            guard retryingEINTR({ fsync(fd) }) == 0 else {
                throw AtomicFileError(path: path, step: .fsync(temp), errno: errno)
            }
        } catch {
            close(fd)
            unlinkPath(temp)
            throw error
        }
        guard close(fd) == 0 else {
            let code = errno
            unlinkPath(temp)
            throw AtomicFileError(path: path, step: .close(temp), errno: code)
        }
        guard withCPaths(temp, path, { rename($0, $1) }) == 0 else {
            let code = errno
            unlinkPath(temp)
            throw AtomicFileError(path: path, step: .rename(temp, to: path), errno: code)
        }
        try syncFolder(folder, for: path)
    }

    /// Fails as `write` would, without touching `path`: a target that is not a regular file (or
    /// a symlink), a folder that cannot be made or written. Call it before work whose result
    /// `write` will save, so the work is not lost.
    package static func checkWritable(_ path: String) throws {
        let (folder, name) = split(path)
        try refuseNonRegular(path)
        try makeFolders(folder, for: path)
        let temp = temporaryPath(folder: folder, name: name, suffix: nil)
        let fd = RawArguments.withCPath(temp) { cTemp in retryingEINTR { open(cTemp, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_WRONLY, 0o600) } }
        guard fd >= 0 else { throw AtomicFileError(path: path, step: .create(temp), errno: errno) }
        close(fd)
        unlinkPath(temp)
    }

    /// Devices, FIFOs, folders and sockets are never renamed over: only a regular file, a symlink
    /// (replaced, as above) or nothing may be at `path`.
    private static func refuseNonRegular(_ path: String) throws {
        var st = stat()
        guard RawArguments.withCPath(path, { lstat($0, &st) }) == 0 else { return }
        let type = st.st_mode & S_IFMT
        guard type != S_IFREG, type != S_IFLNK else { return }
        throw OutputFileError(path: path, problem: .neverReplaced(FileType(mode: type)))
    }

    /// The whole contents of `path`, or nil when there is no such file. Only a regular file (or
    /// a symlink to one) of at most `maxBytes` is read: a FIFO, a device or a folder throws
    /// `NotARegularFile` at once, without waiting on it or reading it forever; a larger file
    /// throws `FileTooLarge`.
    package static func read(path: String, maxBytes: Int = 16 << 20) throws -> [UInt8]? {
        // Non-blocking, so opening a FIFO nobody writes to returns at once.
        // The bytes of the command line when the path came from an argument that was not UTF-8.
        let fd = RawArguments.withCPath(path) { cPath in retryingEINTR { open(cPath, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } }
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw AtomicFileError(path: path, step: .open, errno: errno)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw AtomicFileError(path: path, step: .stat, errno: errno) }
        if let kind = NotARegularFile.kind(st.st_mode) { throw NotARegularFile(path: path, kind: kind) }
        guard st.st_size <= maxBytes else { throw FileTooLarge(path: path, size: Int64(st.st_size), limit: maxBytes) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { buf in
                retryingEINTR { Glibc.read(fd, buf.baseAddress, buf.count) }
            }
            if n < 0 { throw AtomicFileError(path: path, step: .read, errno: errno) }
            if n == 0 { return result }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Runs `body` holding an exclusive `flock` on the folder `path` is in, so that cooperating
    /// read-change-write cycles on the files of one folder (profile writers of several processes)
    /// take turns. A folder not made yet is not locked: there is nothing in it to change.
    package static func withFolderLock<R>(of path: String, _ body: () throws -> R) throws -> R {
        let (folder, _) = split(path)
        let fd = RawArguments.withCPath(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return try body() }
        defer { close(fd) }
        _ = retryingEINTR { flock(fd, LOCK_EX) }
        return try body()
    }

    /// The prefix every temporary file for `name` starts with; exposed so tests can look for leftovers.
    package static func temporaryPrefix(forFileNamed name: String) -> String { ".\(name).tmp." }

    // MARK: - Steps

    private static func backUp(path: String, folder: String, name: String, suffix: String?) throws {
        var st = stat()
        guard RawArguments.withCPath(path, { lstat($0, &st) }) == 0 else {
            if errno == ENOENT { return }
            throw AtomicFileError(path: path, step: .stat, errno: errno)
        }
        let temp = temporaryPath(folder: folder, name: name, suffix: suffix)
        if withCPaths(path, temp, { link($0, $1) }) != 0 {
            let code = errno
            // Hard links are not available everywhere (FAT, protected_hardlinks): copy instead.
            guard code == EPERM || code == EXDEV || code == ENOTSUP || code == EMLINK else {
                throw AtomicFileError(path: path, step: .link(path, to: temp), errno: code)
            }
            try copyForBackup(from: path, to: temp, mode: st.st_mode & 0o7777)
        }
        guard withCPaths(temp, path + ".bak", { rename($0, $1) }) == 0 else {
            let code = errno
            unlinkPath(temp)
            throw AtomicFileError(path: path, step: .rename(temp, to: path + ".bak"), errno: code)
        }
        // rename(2) does nothing when both names already link the same file (a writer killed
        // after its backup step leaves <name>.bak and <name> shared); the temporary must still go.
        unlinkPath(temp)
    }

    private static func copyForBackup(from path: String, to temp: String, mode: mode_t) throws {
        let bytes = try read(path: path) ?? []
        let fd = RawArguments.withCPath(temp) { cTemp in retryingEINTR { open(cTemp, O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_WRONLY, mode) } }
        guard fd >= 0 else { throw AtomicFileError(path: path, step: .create(temp), errno: errno) }
        do {
            try writeAll(fd: fd, bytes: bytes, path: path, temp: temp)
            guard retryingEINTR({ fsync(fd) }) == 0 else {
                throw AtomicFileError(path: path, step: .fsync(temp), errno: errno)
            }
        } catch {
            close(fd); unlinkPath(temp)
            throw error
        }
        close(fd)
    }

    private static func writeAll(fd: Int32, bytes: [UInt8], path: String, temp: String) throws {
        if let code = writeFully(fd, bytes) { throw AtomicFileError(path: path, step: .write(temp), errno: code) }
    }

    private static func makeFolders(_ folder: String, for path: String) throws {
        var st = stat()
        if RawArguments.withCPath(folder, { stat($0, &st) }) == 0 { return }
        let (parent, _) = split(folder)
        if parent != folder { try makeFolders(parent, for: path) }
        if RawArguments.withCPath(folder, { mkdir($0, 0o755) }) != 0 && errno != EEXIST {
            throw AtomicFileError(path: path, step: .createFolder(folder), errno: errno)
        }
    }

    private static func syncFolder(_ folder: String, for path: String) throws {
        let fd = RawArguments.withCPath(folder) { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw AtomicFileError(path: path, step: .openFolder(folder), errno: errno) }
        defer { close(fd) }
        // Without this the rename itself may be lost on power failure.
        if retryingEINTR({ fsync(fd) }) != 0 && errno != EINVAL {
            throw AtomicFileError(path: path, step: .fsyncFolder(folder), errno: errno)
        }
    }

    /// Removes temporaries of `name` whose writer process no longer exists (it was killed mid-write).
    private static func removeStaleTemporaries(in folder: String, name: String) {
        guard let dir = RawArguments.withCPath(folder, { opendir($0) }) else { return }
        defer { closedir(dir) }
        let prefix = temporaryPrefix(forFileNamed: name)
        let me = getpid()
        while let entry = readdir(dir) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard entryName.hasPrefix(prefix) else { continue }
            let pidText = entryName.dropFirst(prefix.count).prefix(while: { $0 != "." })
            guard let pid = pid_t(pidText), pid != me else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                _ = RawArguments.withCPath(folder + "/" + entryName) { unlink($0) }
            }
        }
    }

    private static func temporaryPath(folder: String, name: String, suffix: String?) -> String {
        let unique = suffix ?? String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return folder + "/" + temporaryPrefix(forFileNamed: name) + "\(getpid()).\(unique)"
    }

    private static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}

/// `body` with the C paths of `a` and `b` (see `RawArguments.withCPath`).
private func withCPaths<R>(_ a: String, _ b: String, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> R) -> R {
    RawArguments.withCPath(a) { ca in RawArguments.withCPath(b) { cb in body(ca, cb) } }
}

@discardableResult
private func unlinkPath(_ path: String) -> Int32 { RawArguments.withCPath(path) { unlink($0) } }


/// A file operation that failed, with the path, the step and the kernel's reason.
package struct AtomicFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed and the file it was made on (a temporary file, a backup, the
    /// folder), when that is not `path` itself.
    package enum Step: Sendable, Equatable {
        /// Creating the temporary file.
        case create(String)
        /// Setting the permissions of the temporary file.
        case setPermissions(String)
        /// Flushing the temporary file to the disk.
        case fsync(String)
        /// Closing the temporary file.
        case close(String)
        /// Renaming the first file to the second.
        case rename(String, to: String)
        /// Writing the temporary file.
        case write(String)
        /// Hard-linking the first file (the one replaced) to the second (its backup's temporary name).
        case link(String, to: String)
        /// Creating the folder.
        case createFolder(String)
        /// Opening the folder, to flush it.
        case openFolder(String)
        /// Flushing the folder to the disk.
        case fsyncFolder(String)
        /// Opening `path` to read it.
        case open
        /// Looking at what `path` is.
        case stat
        /// Reading `path`.
        case read
        /// Opening `path` to append to it.
        case openForAppending
        /// Appending to `path`, a block device (refused).
        case appendToBlockDevice
    }

    /// The file being written or read.
    package var path: String
    /// The step that failed.
    package var step: Step
    package var errno: Int32

    package init(path: String, step: Step, errno: Int32) {
        self.path = path; self.step = step; self.errno = errno
    }

    /// The kernel's reason: `Permission denied (errno 13)`.
    package var reason: String { "\(String(cString: strerror(errno))) (errno \(errno))" }

    /// True when this user may not open the file (EACCES, EPERM).
    package var isPermissionDenied: Bool { errno == EACCES || errno == EPERM }

    /// The step, the path and the errno, for a log; a program words it for people.
    package var description: String {
        "AtomicFileError(\(step), path: \(shownPath(path)), errno: \(errno))"
    }
}

/// A path that had to be a regular file (or a symlink to one) and is something else.
package struct NotARegularFile: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    /// What is there instead: a folder, a FIFO, a character device, …
    package var kind: FileType

    package init(path: String, kind: FileType) { self.path = path; self.kind = kind }

    /// The kind and the path, for a log: `NotARegularFile(folder, path: /tmp/x)`. A program words it for people.
    package var description: String { "NotARegularFile(\(kind), path: \(shownPath(path)))" }

    /// What `mode` is, when it is not a regular file.
    static func kind(_ mode: mode_t) -> FileType? {
        mode & S_IFMT == S_IFREG ? nil : FileType(mode: mode)
    }

    /// `path` itself, or the file its symlinks lead to, to be replaced by a regular file:
    /// throws when that exists and is not a regular file. A missing file is fine.
    package static func writableTarget(_ path: String) throws -> String {
        var st = stat()
        guard lstat(path, &st) == 0 else { return path }
        var target = path
        if st.st_mode & S_IFMT == S_IFLNK {
            if let resolved = realpath(path, nil) {
                target = String(cString: resolved)
                free(resolved)
            } else {
                // A link to a file not made yet: create the file it names.
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let n = readlink(path, &buffer, buffer.count - 1)
                guard n > 0 else { return path }
                let link = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
                target = link.hasPrefix("/") ? link : folder + link
            }
            guard stat(target, &st) == 0 else { return target }
        }
        if let kind = kind(st.st_mode) { throw NotARegularFile(path: path, kind: kind) }
        return target
    }
}
