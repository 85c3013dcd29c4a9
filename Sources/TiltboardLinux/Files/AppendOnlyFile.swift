#if canImport(Glibc)
import Glibc
#endif

/// A file opened for appending, written one whole line per `write` so a reader following it
/// (`tail -f`, another program) never sees half a line.
package final class AppendOnlyFile: Sendable {
    package let path: String
    private let fd: Int32

    /// Opens (creating with mode 0644) `path` for appending. A FIFO nobody reads fails (ENXIO)
    /// rather than hanging; a block device is refused (ENODEV), as appending lines to a disk is
    /// never what was meant.
    package init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFileError(path: path, step: .openForAppending, errno: errno) }
        var st = stat()
        if fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFBLK {
            close(fd)
            throw AtomicFileError(path: path, step: .appendToBlockDevice, errno: ENODEV)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Takes an exclusive lock on the whole file for as long as this object lives (an open file
    /// description lock, `F_OFD_SETLK`: other processes' attempts fail, and nothing this process
    /// does with other descriptors of the file drops it). False when another holder has it.
    package func lockExclusively() -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        // F_OFD_SETLK from <linux/fcntl.h> (37); Glibc only names it under _GNU_SOURCE.
        let ofdSetLock: Int32 = 37
        return fcntl(fd, ofdSetLock, &lock) == 0
    }

    /// A record the crash handler appends to this file while the motor it logs is on (it keeps
    /// the file open); nil when none can be made.
    package func crashRecord(monotonic: Bool) -> CrashLogRecord? {
        CrashLogRecord(file: self, fd: fd, monotonic: monotonic)
    }

    /// Appends `line` (which should end in a newline); nil when written, else the `errno`.
    package func append(_ line: String) -> Int32? {
        var line = line
        return line.withUTF8 { OutputFailure.write(fd: fd, UnsafeRawBufferPointer($0)) }
    }
}
