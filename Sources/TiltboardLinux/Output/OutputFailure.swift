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
///
/// A write never makes the program deaf to a stop: it waits for its reader on poll(2) beside the
/// stop's eventfd (`SignalWatcher.stopDescriptor`), and from the stop on waits no longer than
/// `SignalWatcher.outputGrace`; what the reader has not taken by then is abandoned
/// (`abandonedAtStop`), which is no error either.
package enum OutputFailure {
    /// The "errno" of a write abandoned because a stop was requested and its reader did not take
    /// it within `SignalWatcher.outputGrace` (ECANCELED): a normal end of the output.
    package static let abandonedAtStop: Int32 = ECANCELED

    /// The most one write(2) is given: PIPE_BUF (pipe(7)), so a pipe with room for anything takes a
    /// whole chunk at once instead of blocking halfway, and lines up to this long stay whole.
    static let chunkBytes = Int(PIPE_BUF)

    /// An output whose write can fail.
    package enum Output: Sendable, Equatable {
        /// File descriptor 1.
        case standardOutput
        /// File descriptor 2.
        case standardError
        /// A simulated board's motor log at `path`.
        case motorLog(path: String)
    }

    /// One failed write: what was being written and the kernel's reason.
    package struct Failure: Sendable, Equatable, CustomStringConvertible {
        /// Which output failed.
        package var what: Output
        package var errno: Int32

        package init(what: Output, errno: Int32) { self.what = what; self.errno = errno }

        /// True when the reader of a pipe or socket went away, or never took the output before a
        /// requested stop: a normal stop, not an error.
        package var readerWentAway: Bool { errno == EPIPE || errno == OutputFailure.abandonedAtStop }

        /// What was written and the errno, for a log; a program words it for people.
        package var description: String { "OutputFailure(\(what), errno: \(errno))" }
    }

    private static let recorded = Mutex<Failure?>(nil)

    /// The first failed write of this process, if any.
    package static var first: Failure? { recorded.withLock { $0 } }

    /// Records a failed write of `what` and, for the first one, requests a stop on a thread of its
    /// own (the caller may be the motor's or the loop's thread, which the stop handlers join).
    package static func report(_ what: Output, errno code: Int32) {
        // The stop that abandoned the write is already under way, and says why on its own.
        guard code != abandonedAtStop else { return }
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
    package static func ignoreBrokenPipeSignal() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes all of `bytes` to `fd`; nil when done, else the `errno` of the failure, or
    /// `abandonedAtStop`. Waits for room (a full pipe, a stopped terminal, a socket's full buffer)
    /// until a stop is requested, then for `SignalWatcher.outputGrace` at most. Retries `EINTR`.
    /// A socket is written with MSG_DONTWAIT, so a blocking one (systemd's journal stream) never
    /// blocks in send(2) either.
    package static func write(fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard var p = bytes.baseAddress else { return nil }
        var left = bytes.count
        var socket = SocketHint.mayBeSocket(fd)
        while left > 0 {
            guard waitForRoom(fd) else { return abandonedAtStop }
            let chunk = min(left, chunkBytes)
            var n = socket ? Glibc.send(fd, p, chunk, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) : Glibc.write(fd, p, chunk)
            if n < 0 && socket && errno == ENOTSOCK {
                socket = false
                SocketHint.notASocket(fd)
                n = Glibc.write(fd, p, chunk)
            }
            if n < 0 {
                let code = errno
                if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { continue }
                return code
            }
            if n == 0 { return EIO }
            p += n
            left -= n
        }
        return nil
    }

    /// Writes `text` to `fd` only as far as it takes it without waiting (a last word before the
    /// process ends, where nothing may block).
    package static func writeIfReady(fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&waiter, 1, 0) == 1, waiter.revents & Int16(POLLOUT) != 0 else { return }
            let count = min(bytes.count, chunkBytes)
            if SocketHint.mayBeSocket(fd) {
                let sent = Glibc.send(fd, bytes.baseAddress, count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
                if sent >= 0 || errno != ENOTSOCK { return }
            }
            _ = Glibc.write(fd, bytes.baseAddress, count)
        }
    }

    /// Waits until `fd` takes a write (or says why not: POLLERR, POLLHUP, POLLNVAL make the write
    /// fail with the reason). Before a stop, for as long as that takes, waking on the stop's
    /// eventfd; from the stop on, until `outputGrace` after it. False when that passed first.
    static func waitForRoom(_ fd: Int32) -> Bool {
        let watcher = SignalWatcher.shared
        while true {
            if let deadline = watcher.outputDeadlineNanoseconds {
                let now = LinuxMonotonicClock().nowNanoseconds()
                var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                // Rounded up, so the wait never ends a moment short of the deadline and spins.
                let ms = deadline > now ? Int32(clamping: (deadline - now + 999_999) / 1_000_000) : 0
                let ready = poll(&waiter, 1, ms)
                if ready > 0 { return true }
                if ready < 0 && errno != EINTR { return true }
                if ready == 0 && ms == 0 { return false }
                continue
            }
            // On the stack: the per-sample output path does not allocate.
            let writable = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { waiters -> Bool in
                waiters[0] = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                waiters[1] = pollfd(fd: watcher.stopDescriptor, events: Int16(POLLIN), revents: 0)
                let ready = poll(waiters.baseAddress, 2, -1)
                return (ready < 0 && errno != EINTR) || waiters[0].revents != 0
            }
            if writable { return true }
            // The stop (or EINTR): wait on, with the stop's deadline if there is one now.
        }
    }
}

/// Which descriptors were found not to be sockets (a hint: a descriptor number reused for a
/// socket is written with write(2), a reused one that is no socket costs one ENOTSOCK).
private enum SocketHint {
    private static let known = Atomic<UInt64>(0)

    static func mayBeSocket(_ fd: Int32) -> Bool {
        guard fd >= 0 && fd < 64 else { return true }
        return known.load(ordering: .relaxed) & (1 << UInt64(fd)) == 0
    }

    static func notASocket(_ fd: Int32) {
        guard fd >= 0 && fd < 64 else { return }
        known.bitwiseOr(1 << UInt64(fd), ordering: .relaxed)
    }
}
