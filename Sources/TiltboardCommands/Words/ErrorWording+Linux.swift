import TiltboardLinux

// The words for the steps of TiltboardLinux's file errors.

extension ErrorWording {
    /// A failed step of writing or reading a file, as it follows "cannot": `rename /x/.p.json.tmp.1.a to /x/p.json`.
    package static func atomicFileStep(_ step: AtomicFileError.Step) -> String {
        switch step {
        case let .create(file): return "create \(file)"
        case let .setPermissions(file): return "set permissions of \(file)"
        case let .fsync(file): return "fsync \(file)"
        case let .close(file): return "close \(file)"
        case let .rename(from, to): return "rename \(from) to \(to)"
        case let .write(file): return "write \(file)"
        case let .link(from, to): return "link \(from) to \(to)"
        case let .createFolder(folder): return "create folder \(folder)"
        case let .openFolder(folder): return "open folder \(folder)"
        case let .fsyncFolder(folder): return "fsync folder \(folder)"
        case .open: return "open"
        case .stat: return "stat"
        case .read: return "read"
        case .openForAppending: return "open for appending"
        case .appendToBlockDevice: return "append to a block device"
        }
    }
}

extension FileProblem {
    /// What the problem is and how the error line words it, as README.md's table has it.
    package var summary: String {
        switch self {
        case .missing: return "missing, or its path leads to no file | `no such file`, or `cannot read it:` and the kernel's reason (a symlink loop, a name too long, a part of the path not a folder)"
        case .tooLarge: return "larger than its kind of file can be | `a file of N bytes, more than the M bytes it may have`"
        case .notRegular: return "a folder, FIFO, socket or device | `is a FIFO, not a regular file` (`a folder`, `a socket`, …)"
        case .permissionDenied: return "not readable (or writable) by this user | the kernel's `Permission denied (errno 13)` and what to check"
        case .readFailed: return "failing to read (an I/O error) | the kernel's reason"
        }
    }
}
