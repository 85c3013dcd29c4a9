#if canImport(Glibc)
import Glibc
#endif

/// A file a command writes for the user (a recording), opened so that nothing already at the
/// path is ever unlinked, renamed over or replaced:
///
/// - nothing there: created with `O_EXCL`, so of two writers racing for one name the second
///   fails with `.exists`;
/// - a regular file (or a symlink to one): refused with `.overwriteNotAsked` unless `overwrite`; with it,
///   truncated and written in place, through the link, keeping the file's mode and links; a file
///   without any write permission bit is refused (`.permission`) even for root;
/// - a character device or a FIFO: written through, with or without `overwrite` (`/dev/null`, a
///   pipe to another program); a FIFO without a reader is waited for;
/// - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`: the descriptor itself, duplicated,
///   so its offset and append mode are kept; one that was closed when the program started
///   (see `StandardDescriptors`) is refused with `.closedDescriptor`;
/// - a folder, a socket, a block device, a broken symlink: refused with `.refused`.
///
/// Regular files are locked (`flock`) while written: a second writer of the same file, even
/// with `overwrite`, fails with `.exists` instead of mixing its lines into the first one's.
package final class OutputFile {
    /// The path as the user gave it.
    package let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Opens `path` for writing as described above. `waitingForReader` is called once when `path`
    /// is a FIFO nobody reads yet; the wait ends when a reader opens it or `shouldStop` returns true
    /// (then `.interrupted`).
    package static func open(path: String, overwrite: Bool,
                            closedStandardDescriptors: Set<Int32> = StandardDescriptors.closedAtStart,
                            waitingForReader: () -> Void = {},
                            shouldStop: () -> Bool = { false }) throws -> OutputFile {
        if let n = standardDescriptorAlias(path) {
            if closedStandardDescriptors.contains(n) {
                throw OutputFileError(path: path, problem: .closedDescriptor(n))
            }
            let fd = fcntl(n, F_DUPFD_CLOEXEC, 3)
            guard fd >= 0 else { throw OutputFileError(path: path, errno: errno, step: .useDescriptor(n)) }
            return OutputFile(path: path, fd: fd)
        }
        // A name created by someone else between the look and the create is looked at again.
        for _ in 0..<3 {
            var st = stat()
            if RawArguments.withCPath(path, { stat($0, &st) }) != 0 {
                let code = errno
                guard code == ENOENT else { throw OutputFileError(path: path, errno: code, step: .lookAt) }
                var link = stat()
                if RawArguments.withCPath(path, { lstat($0, &link) }) == 0 {
                    throw OutputFileError(path: path, problem: .danglingSymlink)
                }
                let fd = RawArguments.withCPath(path) { cPath in retryingEINTR { Glibc.open(cPath, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY | O_CLOEXEC, 0o666) } }
                if fd < 0 && errno == EEXIST { continue }
                guard fd >= 0 else { throw OutputFileError(path: path, errno: errno, step: .create) }
                let file = OutputFile(path: path, fd: fd)
                try file.lock()
                return file
            }
            return try openExisting(path: path, mode: st.st_mode, overwrite: overwrite,
                                    waitingForReader: waitingForReader, shouldStop: shouldStop)
        }
        throw OutputFileError(path: path, problem: .keepsChanging)
    }

    private static func openExisting(path: String, mode: mode_t, overwrite: Bool,
                                     waitingForReader: () -> Void, shouldStop: () -> Bool) throws -> OutputFile {
        let type = mode & S_IFMT
        switch type {
        case S_IFREG:
            guard overwrite else {
                throw OutputFileError(path: path, problem: .alreadyExists)
            }
            guard mode & 0o222 != 0 else {
                throw OutputFileError(path: path, problem: .readOnly)
            }
        case S_IFCHR, S_IFIFO:
            break
        default:
            throw OutputFileError(path: path, problem: .notWritable(FileType(mode: type)))
        }
        // Non-blocking, so a FIFO without a reader says so (ENXIO) instead of hanging here.
        var fd: Int32
        var announced = false
        while true {
            fd = RawArguments.withCPath(path) { cPath in retryingEINTR { Glibc.open(cPath, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) } }
            guard fd < 0, errno == ENXIO, type == S_IFIFO else { break }
            if !announced { waitingForReader(); announced = true }
            if shouldStop() {
                throw OutputFileError(path: path, problem: .stoppedWaitingForReader)
            }
            var none = pollfd()
            _ = poll(&none, 0, 20)
        }
        guard fd >= 0 else { throw OutputFileError(path: path, errno: errno, step: .open) }
        let file = OutputFile(path: path, fd: fd)
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw OutputFileError(path: path, errno: errno, step: .lookAt) }
        guard st.st_mode & S_IFMT == type else {
            throw OutputFileError(path: path, problem: .replacedWhileOpening)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        if type == S_IFREG {
            // Lock before truncating: the contents of a file another writer is filling stay intact.
            try file.lock()
            guard ftruncate(fd, 0) == 0 else { throw OutputFileError(path: path, errno: errno, step: .empty) }
        }
        return file
    }

    private func lock() throws {
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EWOULDBLOCK {
                throw OutputFileError(path: path, problem: .beingWritten)
            }
            // File systems without flock (some network mounts) still take the file.
        }
    }

    /// Writes all of `bytes`; a failure carries the kernel's reason.
    package func write(_ bytes: [UInt8]) throws {
        if let code = writeFully(fd, bytes) { throw OutputFileError(path: path, errno: code, step: .write) }
    }

    /// Closes the file (and releases its lock); later calls do nothing.
    package func close() throws {
        guard fd >= 0 else { return }
        let rc = Glibc.close(fd)
        fd = -1
        if rc != 0 && errno != EINTR { throw OutputFileError(path: path, errno: errno, step: .close) }
    }

    /// N when `path` names an open descriptor of this process rather than a file.
    static func standardDescriptorAlias(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }
}

/// An output file that cannot be opened or written: what went wrong (`problem`, with its fields)
/// and where. It carries no sentence: the program that shows it words it.
package struct OutputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad kind of failure, for a program that only needs to decide what to do.
    package enum Kind: Sendable, Equatable {
        /// The name is taken: another writer's file, or a name that keeps changing.
        case exists
        /// A regular file is there and replacing it was not asked for.
        case overwriteNotAsked
        /// Not something to write to: a folder, socket, block device or broken symlink.
        case refused
        /// The file or its folder may not be written.
        case permission
        /// The path named a standard descriptor that was closed at start.
        case closedDescriptor
        /// Stopped while waiting for a FIFO's reader.
        case interrupted
        /// Any other failure of the kernel.
        case io
    }

    /// Exactly what went wrong, with the fields a message needs.
    package enum Problem: Sendable, Equatable {
        /// The path names standard descriptor N (`/dev/stdout`, `/dev/fd/N`), which was closed
        /// when the program started.
        case closedDescriptor(Int32)
        /// A symlink to a missing file.
        case danglingSymlink
        /// The name kept appearing and disappearing while it was being created.
        case keepsChanging
        /// A regular file is there and replacing it was not asked for.
        case alreadyExists
        /// A regular file without any write permission bit.
        case readOnly
        /// Not something to write to (a folder, a socket, a block device).
        case notWritable(FileType)
        /// Something an atomic write never replaces (a folder, a FIFO, a device).
        case neverReplaced(FileType)
        /// Stopped while waiting for a program to read the FIFO.
        case stoppedWaitingForReader
        /// The file at the path changed type between the look and the open.
        case replacedWhileOpening
        /// Another program holds the file's lock.
        case beingWritten
        /// A step the kernel refused, with its errno (see `errno`).
        case failed(Step)
    }

    /// The step of opening or writing that the kernel refused.
    package enum Step: Sendable, Equatable {
        /// Duplicating standard descriptor N.
        case useDescriptor(Int32)
        case lookAt, create, open, empty, write, close
    }

    /// The path as the user gave it.
    package var path: String
    /// What went wrong.
    package var problem: Problem
    /// The kernel's reason, when the kernel refused.
    package var errno: Int32?

    /// A failure of `problem` at `path`, with the kernel's `errno` when it refused.
    package init(path: String, problem: Problem, errno: Int32? = nil) {
        self.path = path; self.problem = problem; self.errno = errno
    }

    /// A step the kernel refused with `errno`.
    package init(path: String, errno code: Int32, step: Step) {
        self.init(path: path, problem: .failed(step), errno: code)
    }

    /// The broad kind of `problem`.
    package var kind: Kind {
        switch problem {
        case .closedDescriptor: return .closedDescriptor
        case .danglingSymlink, .notWritable, .neverReplaced, .replacedWhileOpening: return .refused
        case .keepsChanging, .beingWritten: return .exists
        case .alreadyExists: return .overwriteNotAsked
        case .readOnly: return .permission
        case .stoppedWaitingForReader: return .interrupted
        case .failed:
            switch errno ?? 0 {
            case EACCES, EPERM, EROFS: return .permission
            case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG, EISDIR, ENXIO, EEXIST: return .refused
            default: return .io
            }
        }
    }

    /// True when a write found the pipe's reader gone (a recording into /dev/stdout piped to `head`),
    /// or a reader that did not take the output before a requested stop: a normal end of the
    /// output, not an error.
    package var readerWentAway: Bool { errno == EPIPE || errno == OutputFailure.abandonedAtStop }

    /// The problem and the path, for a log; a program words it for people.
    public var description: String {
        "OutputFileError(\(problem), path: \(shownPath(path))\(errno.map { ", errno: \($0)" } ?? ""))"
    }
}

/// What is at a path, from the `S_IFMT` bits of its mode: an error that wants a regular file
/// says what it found instead with one of these.
public enum FileType: Sendable, Equatable {
    /// A regular file.
    case regular
    /// A folder (directory).
    case folder
    /// A character device, such as a terminal or `/dev/null`.
    case characterDevice
    /// A block device, such as a disk.
    case blockDevice
    /// A FIFO (named pipe).
    case fifo
    /// A Unix-domain socket.
    case socket
    /// A symbolic link (seen without following it).
    case symlink
    /// None of the above.
    case other

    /// The type of the `S_IFMT` bits of `mode`.
    package init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symlink
        default: self = .other
        }
    }
}

/// Writes all of `bytes` to `fd`, again after EINTR and after a partial write; the errno of a
/// failure, or nil.
func writeFully(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { OutputFailure.write(fd: fd, $0) }
}

