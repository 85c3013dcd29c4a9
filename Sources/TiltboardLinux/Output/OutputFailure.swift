#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// What happens when the program's output cannot be written: standard output or error, a
/// recording, the motor log.
///
/// A failed write is a reason to stop, never to carry on silently or to block: the first failure
/// is kept (`first`), and a stop is requested as a signal would (`SignalWatcher.shared`), so the
/// motor goes off and the command's loop winds down. A reader that went away (`EPIPE`) is a normal
/// end; anything else (`ENOSPC`, `EIO`, `EBADF`, …) is an I/O error the command reports.
public enum OutputFailure {
    /// One failed write: what was being written and the kernel's reason.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        /// `standard output`, `motor log /tmp/m.log`, …
        public var what: String
        public var errno: Int32

        public init(what: String, errno: Int32) { self.what = what; self.errno = errno }

        /// True when the reader of a pipe or socket went away: a normal stop, not an error.
        public var readerWentAway: Bool { errno == EPIPE }

        public var description: String {
            let hint: String
            switch errno {
            case ENOSPC, EDQUOT: hint = ": free some disk space"
            case EBADF: hint = ": it is not open for writing"
            case EIO: hint = ": the device or terminal is gone"
            default: hint = ""
            }
            return "cannot write to \(what): \(String(cString: strerror(errno))) (errno \(errno))\(hint)"
        }
    }

    private static let recorded = Mutex<Failure?>(nil)

    /// The first failed write of this process, if any.
    public static var first: Failure? { recorded.withLock { $0 } }

    /// Records a failed write of `what` and, for the first one, requests a stop on a thread of its
    /// own (the caller may be the motor's or the loop's thread, which the stop handlers join).
    public static func report(_ what: String, errno code: Int32) {
        let isFirst = recorded.withLock { failure -> Bool in
            guard failure == nil else { return false }
            failure = Failure(what: what, errno: code)
            return true
        }
        guard isFirst else { return }
        spawnDetached { SignalWatcher.shared.requestStop(signal: SIGPIPE) }
    }

    /// Makes a write to a closed pipe return `EPIPE` instead of killing the process, so the motor
    /// can be switched off first. Call at start, before any thread exists.
    public static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes all of `bytes` to `fd`; nil when done, else the `errno` of the failure. Retries
    /// `EINTR`; waits for room on a non-blocking descriptor (`EAGAIN`).
    public static func write(fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard var p = bytes.baseAddress else { return nil }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fd, p, left)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiter, 1, -1)
                    continue
                }
                return code
            }
            if n == 0 { return EIO }
            p += n
            left -= n
        }
        return nil
    }
}
