#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxSupport
import Synchronization
import TiltboardCore

/// Turns every signal whose default action would end the process into a stop flag and shutdown
/// callbacks, so a stopped program never leaves the motor line high: SIGINT, SIGTERM and SIGHUP
/// (a requested stop, exit status 0), and SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
/// SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ and the real-time signals SIGRTMIN…SIGRTMAX (the same
/// clean stop, then exit status 128 + the signal, what a shell reports for a process that signal
/// killed: `exitStatus(afterStopBy:)`). The crash signals (SIGSEGV, SIGBUS, SIGILL, SIGTRAP,
/// SIGFPE, SIGABRT, SIGSYS, SIGQUIT) cannot wait for a thread: `start()` installs
/// `CrashFailSafe`'s handler for them, which switches the motor off and lets them end the process.
/// glibc keeps signals 32 and 33 for its threads; where it has not installed its own handler yet
/// (glibc 2.34 and later install it lazily), they take the same stop, exit status 128 + the signal.
///
/// `start()` blocks those signals in the calling thread — call it first thing in `main`, before any
/// other thread exists, so every later thread inherits the mask — and starts a thread that takes
/// them with `sigwait`. No code runs inside a signal handler, so handlers may lock, allocate and
/// do I/O. On the first signal `stopRequested` becomes true and the `onStop` handlers run (newest
/// first) on a thread of their own; the program's loop should notice the flag and wind down. A second
/// signal runs the handlers again (they must be idempotent, like `HapticEngine.shutdown()`) and
/// exits at once with status 130.
///
/// A stop never waits on the program's output: from the stop on, a write whose reader does not
/// take it (a pipe or FIFO nobody reads, a terminal stopped with Ctrl-S, a network peer that
/// stopped reading) waits at most `outputGrace` and is then abandoned (`OutputFailure.write`,
/// woken by `stopDescriptor`). And the process ends within `stopDeadline` of SIGINT, SIGTERM or
/// SIGHUP whatever its threads are doing: the watcher's deadline switches every motor line off
/// (`CrashFailSafe.trip()`) and exits with the stop's status.
///
/// Job control goes through the same thread: on SIGTSTP (Ctrl-Z), SIGTTIN or SIGTTOU the
/// `onSuspend` handlers run (motor off, terminal restored), and only then does the process stop,
/// by sending itself SIGSTOP; on SIGCONT the `onResume` handlers run. While these signals are
/// blocked the kernel lets a background job write to its terminal and fails its reads with EIO
/// instead of stopping it: code that reads the terminal calls `waitForForeground` first.
package final class SignalWatcher: Sendable {
    /// The process's watcher, with the stop deadline.
    package static let shared = SignalWatcher(stopDeadline: defaultStopDeadline)

    /// How long after a stop request a write may still wait for its reader before it is abandoned.
    package static let outputGrace: Duration = .milliseconds(150)

    /// How long after a stop signal the process may take to wind down before the watcher ends it.
    /// The user's Ctrl-C, SIGTERM or SIGHUP ends the process within half a second: this leaves
    /// 200 ms after `outputGrace` for the wind-down and 150 ms for the exit itself.
    package static let defaultStopDeadline: Duration = .milliseconds(350)

    /// The signals of a requested stop, which ends with exit status 0: SIGINT, SIGTERM, SIGHUP.
    package static let requestSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The other signals whose default action ends the process (core dump for SIGXCPU and
    /// SIGXFSZ): the same stop, then exit status 128 + the signal.
    package static let otherTerminationSignals: [Int32] =
        [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ]
        + Array(tb_sigrtmin()...tb_sigrtmax())

    /// Every signal taken as a stop.
    package static let terminationSignals: [Int32] = requestSignals + otherTerminationSignals

    /// glibc's reserved signals (SIGCANCEL, SIGSETXID), which glibc will not let a program block or
    /// handle; forwarded like `forwardedSignals` while glibc has no handler of its own for them.
    static let reservedSignals: [Int32] = [32, 33]

    /// The termination signals never blocked: Swift's crash handler sends one of them to each
    /// thread to suspend it while it takes a backtrace. A handler forwards them to the watching
    /// thread, queued on SIGTERM with the signal's number.
    static let forwardedSignals: [Int32] = [SIGUSR1, SIGUSR2, SIGPROF]

    /// The exit status after a clean stop by `signal`: 128 + `signal` for one of
    /// `otherTerminationSignals`, else 0 (SIGINT, SIGTERM, SIGHUP, no signal, and the SIGPIPE a
    /// reader that went away stands for).
    package static func exitStatus(afterStopBy signal: Int32?) -> Int32 {
        guard let signal, otherTerminationSignals.contains(signal) || reservedSignals.contains(signal) else { return 0 }
        return 128 + signal
    }

    /// The job-control signals that stop the process once the suspend handlers ran.
    package static let stopSignals: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// Exit status after a second signal: the shell's status for an interrupted program.
    package static let forcedExitStatus: Int32 = 130

    private struct State {
        var handlers: [@Sendable (Int32) -> Void] = []
        var suspendHandlers: [@Sendable () -> Void] = []
        var resumeHandlers: [@Sendable () -> Void] = []
        var started = false
        var thread: pthread_t?
    }

    private let stop = Atomic<Bool>(false)
    private let received = Atomic<Int32>(0)
    private let state = Mutex(State())
    private let resumes = Atomic<UInt64>(0)
    private let suspendedAt = Atomic<UInt64>(0)
    private let stopped = Atomic<UInt64>(0)
    private let exitProcess: @Sendable (Int32) -> Void
    private let stopProcess: @Sendable () -> Void
    /// When the stop was requested, CLOCK_MONOTONIC nanoseconds; 0 before.
    private let stopStarted = Atomic<UInt64>(0)
    private let event: Int32
    private let stopDeadline: Duration?
    private let forceOff: @Sendable () -> Void
    /// The line written to stderr when the stop deadline ends the process; the program sets its words.
    private let deadlineNote = Mutex<(@Sendable (_ signal: Int32, _ waited: Duration) -> String)?>(nil)

    /// Sets the line (a newline at its end) written to stderr when a stop by `signal` is still
    /// busy after `waited` and the process is ended with the motor off. Without it nothing is written.
    package func setDeadlineNote(_ words: @escaping @Sendable (_ signal: Int32, _ waited: Duration) -> String) {
        deadlineNote.withLock { $0 = words }
    }

    /// `exitProcess` replaces `_exit`, and `stopProcess` the SIGSTOP the process sends itself, in
    /// tests. `stopDeadline`: how long after a stop signal the process is ended if still running
    /// (nil: never), after `forceOff` (every motor line off, as on a crash).
    init(exitProcess: @escaping @Sendable (Int32) -> Void = { _exit($0) },
         stopProcess: @escaping @Sendable () -> Void = { _ = kill(getpid(), SIGSTOP) },
         stopDeadline: Duration? = nil,
         forceOff: @escaping @Sendable () -> Void = { CrashFailSafe.trip() }) {
        self.exitProcess = exitProcess
        self.stopProcess = stopProcess
        self.stopDeadline = stopDeadline
        self.forceOff = forceOff
        // Out of descriptors: -1, which poll(2) ignores; waits then end only by their deadline.
        event = Self.highDescriptor(tiltboard_eventfd())
    }

    /// `fd` moved to 100 or above (close-on-exec), where it shifts no number the program's other
    /// files get: Swift's crash backtracer (swift-backtrace, Swift 6.3) hangs after a crash when a
    /// descriptor the process opened early sits at 3. `fd` itself when it cannot be moved.
    private static func highDescriptor(_ fd: Int32) -> Int32 {
        guard fd >= 0 else { return fd }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 100)
        guard moved >= 0 else { return fd }
        close(fd)
        return moved
    }

    deinit { if event >= 0 { close(event) } }

    /// Blocks the termination and job-control signals in the calling thread, installs the crash
    /// handler (`CrashFailSafe`) and starts the watching thread. Does nothing when already started.
    package func start() throws {
        let already = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started
        }
        if already { return }
        try CrashFailSafe.install()
        let forwarded = Self.forwardedSignals.withUnsafeBufferPointer {
            tb_forward_install($0.baseAddress, Int32($0.count), SIGTERM)
        }
        if forwarded != 0 { throw SignalWatcherError(.installHandlers, errno: -forwarded) }
        let reserved = Self.reservedSignals.withUnsafeBufferPointer {
            tb_forward_install_reserved($0.baseAddress, Int32($0.count), SIGTERM)
        }
        if reserved != 0 { throw SignalWatcherError(.installHandlers, errno: -reserved) }
        var set = Self.signalSet()
        var rc = pthread_sigmask(SIG_BLOCK, &set, nil)
        if rc != 0 { throw SignalWatcherError(.blockSignals, errno: rc) }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        rc = pthread_create(&thread, nil, { arg in
            let watcher = Unmanaged<SignalWatcher>.fromOpaque(arg!).takeRetainedValue()
            watcher.watch()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<SignalWatcher>.fromOpaque(context).release()
            state.withLock { $0.started = false }
            throw SignalWatcherError(.startThread, errno: rc)
        }
        _ = pthread_detach(thread)
        state.withLock { $0.thread = thread }
    }

    /// True once a termination signal arrived (or `requestStop` was called).
    package var stopRequested: Bool { stop.load(ordering: .acquiring) }

    /// An eventfd(2) that polls readable from the stop request on (-1 if none could be made), so
    /// a thread waiting for its output's reader wakes at the stop.
    package var stopDescriptor: Int32 { event }

    /// CLOCK_MONOTONIC nanoseconds after which a write still waiting for its reader is abandoned:
    /// `outputGrace` after the stop request; nil before it.
    package var outputDeadlineNanoseconds: UInt64? {
        let started = stopStarted.load(ordering: .acquiring)
        return started == 0 ? nil : started &+ Nanoseconds.span(Self.outputGrace)
    }

    /// `wait`, or less once a stop was requested: what is left until `outputGrace` after it (for
    /// a server's goodbye to its clients, a queue's last lines).
    package func boundedByStop(_ wait: Duration) -> Duration {
        guard let deadline = outputDeadlineNanoseconds else { return wait }
        let now = Self.monotonicNow()
        let left = deadline > now ? Nanoseconds.duration(deadline - now) : .zero
        return min(wait, left)
    }

    /// The signal that requested the stop, or nil.
    package var signal: Int32? {
        let s = received.load(ordering: .acquiring)
        return s == 0 ? nil : s
    }

    /// Registers a shutdown handler, called with the signal number. Registered after a stop was
    /// requested, it runs at once.
    package func onStop(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.handlers.append(handler) }
        if stopRequested { handler(received.load(ordering: .acquiring)) }
    }

    /// Registers a handler run on SIGTSTP, SIGTTIN and SIGTTOU before the process stops (newest
    /// first, on the watching thread: it must be quick and must not wait for the main thread).
    package func onSuspend(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.suspendHandlers.append(handler) }
    }

    /// Registers a handler run when the process continues (SIGCONT), in registration order.
    package func onResume(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.resumeHandlers.append(handler) }
    }

    /// How many times the process was continued (SIGCONT) so far.
    package var resumeCount: UInt64 { resumes.load(ordering: .acquiring) }

    /// Total time the process spent stopped by job control, on CLOCK_MONOTONIC: what a timeout
    /// that measures the program's own waiting (not the user's pause) takes off.
    package var stoppedNanoseconds: UInt64 { stopped.load(ordering: .acquiring) }

    /// Stops the process as Ctrl-Z would (SIGTSTP, so the suspend handlers run first); for a
    /// terminal in raw mode, where the key arrives as a byte. Returns once the process has been
    /// continued (or a stop is requested), so the caller cannot undo a handler's work, such as
    /// taking the terminal back, before the stop lands.
    package func suspend() {
        let seen = resumeCount
        _ = kill(getpid(), SIGTSTP)
        var none = pollfd()
        while resumeCount == seen && !stopRequested { _ = poll(&none, 0, 10) }
    }

    /// Stops the process, as the kernel's SIGTTIN would, until it is the foreground job of the
    /// terminal `fd` (or a stop is requested). Returns at once when `fd` is not a terminal or the
    /// process is in the foreground already.
    package func waitForForeground(of fd: Int32) {
        // tcgetpgrp fails on a terminal that is not this process's controlling one: no job control there.
        while isatty(fd) == 1, case let group = tcgetpgrp(fd), group > 0, group != getpgrp(), !stopRequested {
            let seen = resumeCount
            _ = kill(getpid(), SIGTTIN)
            // The watching thread stops the process; this thread goes on once it is continued.
            var none = pollfd()
            for _ in 0..<100 where resumeCount == seen && !stopRequested { _ = poll(&none, 0, 10) }
        }
    }

    /// Requests a stop as a signal would (e.g. from a key press), running the handlers on the
    /// calling thread. Later calls do nothing.
    package func requestStop(signal: Int32 = SIGTERM) {
        guard !stop.exchange(true, ordering: .acquiringAndReleasing) else { return }
        received.store(signal, ordering: .releasing)
        markStopped()
        runHandlers(signal)
    }

    /// The watching thread, for tests that direct a signal at it.
    var watcherThread: pthread_t? { state.withLock { $0.thread } }

    private func watch() {
        var set = Self.signalSet()
        while true {
            let signal = tb_sigwait_forwarded(&set)
            guard signal > 0 else { continue }
            if Self.stopSignals.contains(signal) {
                for handler in state.withLock({ $0.suspendHandlers }).reversed() { handler() }
                suspendedAt.store(Self.monotonicNow(), ordering: .releasing)
                stopProcess()
                continue
            }
            if signal == SIGCONT {
                let since = suspendedAt.exchange(0, ordering: .acquiringAndReleasing)
                if since > 0 { stopped.add(Self.monotonicNow() &- since, ordering: .releasing) }
                resumes.add(1, ordering: .releasing)
                for handler in state.withLock({ $0.resumeHandlers }) { handler() }
                continue
            }
            let wasStopping = stop.exchange(true, ordering: .acquiringAndReleasing)
            if !wasStopping {
                received.store(signal, ordering: .releasing)
                markStopped()
                // On another thread, so a handler that hangs cannot keep a second signal from exiting.
                let taken = signal
                spawnDetached { [self] in runHandlers(taken) }
                armDeadline(signal)
            } else {
                runHandlers(signal)
                exitProcess(Self.forcedExitStatus)
            }
        }
    }

    /// Notes when the stop began and wakes the writers waiting on `stopDescriptor`.
    private func markStopped() {
        _ = stopStarted.compareExchange(expected: 0, desired: max(Self.monotonicNow(), 1), ordering: .acquiringAndReleasing)
        guard event >= 0 else { return }
        var one: UInt64 = 1
        _ = write(event, &one, MemoryLayout<UInt64>.size)
    }

    /// The last resort after a stop signal: once `stopDeadline` has passed, whatever still holds
    /// the process (a write that a terminal or a peer never takes, a handler stuck on one), every
    /// motor line is driven off and the process exits with the stop's status. A line on stderr says
    /// so when stderr takes it at once.
    ///
    /// Only for SIGINT, SIGTERM and SIGHUP: the others include the signals Swift's crash handler
    /// sends each thread to suspend it (`forwardedSignals`), and a crash's backtrace must be left to
    /// finish (its helper process hangs if the crashed process goes first). For the same reason
    /// nothing is done once a crash began (`CrashFailSafe.tripped`).
    private func armDeadline(_ signal: Int32) {
        guard let stopDeadline, Self.requestSignals.contains(signal) else { return }
        let started = stopStarted.load(ordering: .acquiring)
        spawnDetached { [self] in
            let end = started &+ Nanoseconds.span(stopDeadline)
            let clock = LinuxMonotonicClock()
            while clock.nowNanoseconds() < end { clock.sleep(untilNanoseconds: end) }
            // A crash is under way: its handler ends the process once the backtrace is printed.
            guard !CrashFailSafe.tripped else { return }
            forceOff()
            let status = Self.exitStatus(afterStopBy: signal, output: OutputFailure.first)
            if let words = deadlineNote.withLock({ $0 }) { OutputFailure.writeIfReady(fd: 2, words(signal, stopDeadline)) }
            exitProcess(status)
        }
    }

    /// The status a stop by `signal` ends with when the deadline cuts it short: `exitStatus(afterStopBy:)`,
    /// or 74 (EX_IOERR, sysexits.h) after an output failure that was no reader going away.
    static func exitStatus(afterStopBy signal: Int32, output: OutputFailure.Failure?) -> Int32 {
        let status = exitStatus(afterStopBy: signal)
        if status == 0, let output, !output.readerWentAway { return 74 }
        return status
    }

    private func runHandlers(_ signal: Int32) {
        let handlers = state.withLock { $0.handlers }
        for handler in handlers.reversed() { handler(signal) }
    }

    private static func monotonicNow() -> UInt64 { LinuxMonotonicClock().nowNanoseconds() }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in terminationSignals + stopSignals + [SIGCONT] where !forwardedSignals.contains(s) { sigaddset(&set, s) }
        return set
    }
}

/// Runs `body` on a new detached thread; runs it inline if no thread can be created.
func spawnDetached(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { arg in
        Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
        return nil
    }, context)
    if rc == 0 {
        _ = pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
    }
}

/// The signal watcher (or the crash handler) could not be set up: the step and the errno; the
/// program that shows it words it.
package struct SignalWatcherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The step that failed.
    package enum Step: Sendable, Equatable {
        /// Installing the handlers of the stop signals.
        case installHandlers
        /// Blocking the termination signals.
        case blockSignals
        /// Starting the thread that waits for signals.
        case startThread
        /// Installing the crash handler.
        case installCrashHandler
    }

    /// What failed.
    package var step: Step
    /// The errno of the failed call.
    package var errno: Int32

    /// A failure of `step` with `errno`.
    package init(_ step: Step, errno: Int32) { self.step = step; self.errno = errno }

    /// The step and the errno, for a log; a program words it for people.
    package var description: String { "SignalWatcherError(\(step), errno: \(errno))" }
}
