#if canImport(Glibc)
import Glibc
#endif
import TiltboardCore

/// What can be wrong with a file a command is given, whatever the file (board file, profile,
/// trace, motion script, motor log, token file, the service's settings): each problem has its own
/// words and its own exit status. This is the one table of them; README.md's table of file
/// problems is tested against it.
package enum FileProblem: String, CaseIterable, Sendable {
    /// Nothing at the path, or a path that leads to no file (a part of it is not a folder, a
    /// symlink loop, a name too long).
    case missing
    /// A regular file larger than that kind of file can be.
    case tooLarge
    /// A folder, a FIFO, a socket or a device where a regular file (or a symlink to one) belongs.
    case notRegular
    /// This user may not open it.
    case permissionDenied
    /// The kernel failed the read or the open for another reason (EIO, …).
    case readFailed

    /// The category, and so the exit status (`SysExit`), of the problem.
    package var category: ErrorCategory {
        switch self {
        case .missing, .tooLarge: return .invalidData       // 65
        case .notRegular: return .cannotCreate              // 73
        case .readFailed: return .io                        // 74
        case .permissionDenied: return .permissionDenied    // 77
        }
    }

    /// The problem an `open`, `stat` or `read` failing with `code` stands for.
    package init(errno code: Int32) {
        switch code {
        case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG: self = .missing
        case EACCES, EPERM: self = .permissionDenied
        case EISDIR, ENXIO, ENODEV: self = .notRegular
        default: self = .readFailed
        }
    }
}

/// A regular file larger than its kind of file can be, refused before reading it.
package struct FileTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
    package var path: String
    package var size: Int64
    package var limit: Int

    package init(path: String, size: Int64, limit: Int) { self.path = path; self.size = size; self.limit = limit }

    /// The size, the limit and the path, for a log: `FileTooLarge(size: 2000, limit: 1000, path: /tmp/x)`.
    /// A program words it for people.
    package var description: String { "FileTooLarge(size: \(size), limit: \(limit), path: \(shownPath(path)))" }
}

extension FileTooLarge: CategorizedError {
    package var category: ErrorCategory { FileProblem.tooLarge.category }
}
