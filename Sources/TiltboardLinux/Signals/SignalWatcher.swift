#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxSupport
import Synchronization

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
/// Job control goes through the same thread: on SIGTSTP (Ctrl-Z), SIGTTIN or SIGTTOU the
/// `onSuspend` handlers run (motor off, terminal restored), and only then does the process stop,
/// by sending itself SIGSTOP; on SIGCONT the `onResume` handlers run. While these signals are
/// blocked the kernel lets a background job write to its terminal and fails its reads with EIO
/// instead of stopping it: code that reads the terminal calls `waitForForeground` first.
public final class SignalWatcher: Sendable {
    /// The process's watcher.
    public static let shared = SignalWatcher()

    /// The signals of a requested stop, which ends with exit status 0: SIGINT, SIGTERM, SIGHUP.
    public static let requestSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The other signals whose default action ends the process (core dump for SIGXCPU and
    /// SIGXFSZ): the same stop, then exit status 128 + the signal.
    public static let otherTerminationSignals: [Int32] =
        [SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGXFSZ]
        + Array(tb_sigrtmin()...tb_sigrtmax())

    /// Every signal taken as a stop.
    public static let terminationSignals: [Int32] = requestSignals + otherTerminationSignals

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
    public static func exitStatus(afterStopBy signal: Int32?) -> Int32 {
        guard let signal, otherTerminationSignals.contains(signal) || reservedSignals.contains(signal) else { return 0 }
        return 128 + signal
    }

    /// The job-control signals that stop the process once the suspend handlers ran.
    public static let stopSignals: [Int32] = [SIGTSTP, SIGTTIN, SIGTTOU]

    /// Exit status after a second signal: the shell's status for an interrupted program.
    public static let forcedExitStatus: Int32 = 130

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

    /// `exitProcess` replaces `_exit`, and `stopProcess` the SIGSTOP the process sends itself, in tests.
    init(exitProcess: @escaping @Sendable (Int32) -> Void = { _exit($0) },
         stopProcess: @escaping @Sendable () -> Void = { _ = kill(getpid(), SIGSTOP) }) {
        self.exitProcess = exitProcess
        self.stopProcess = stopProcess
    }

    /// Blocks the termination and job-control signals in the calling thread, installs the crash
    /// handler (`CrashFailSafe`) and starts the watching thread. Does nothing when already started.
    public func start() throws {
        let already = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started
        }
        if already { return }
        try CrashFailSafe.install()
        let forwarded = Self.forwardedSignals.withUnsafeBufferPointer {
            tb_forward_install($0.baseAddress, Int32($0.count), SIGTERM)
        }
        if forwarded != 0 { throw SignalWatcherError("cannot install the signal handlers (errno \(-forwarded))") }
        let reserved = Self.reservedSignals.withUnsafeBufferPointer {
            tb_forward_install_reserved($0.baseAddress, Int32($0.count), SIGTERM)
        }
        if reserved != 0 { throw SignalWatcherError("cannot install the signal handlers (errno \(-reserved))") }
        var set = Self.signalSet()
        var rc = pthread_sigmask(SIG_BLOCK, &set, nil)
        if rc != 0 { throw SignalWatcherError("cannot block termination signals (errno \(rc))") }
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
            throw SignalWatcherError("cannot start the signal thread (errno \(rc)); the system may be out of threads")
        }
        _ = pthread_detach(thread)
        state.withLock { $0.thread = thread }
    }

    /// True once a termination signal arrived (or `requestStop` was called).
    public var stopRequested: Bool { stop.load(ordering: .acquiring) }

    /// The signal that requested the stop, or nil.
    public var signal: Int32? {
        let s = received.load(ordering: .acquiring)
        return s == 0 ? nil : s
    }

    /// Registers a shutdown handler, called with the signal number. Registered after a stop was
    /// requested, it runs at once.
    public func onStop(_ handler: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.handlers.append(handler) }
        if stopRequested { handler(received.load(ordering: .acquiring)) }
    }

    /// Registers a handler run on SIGTSTP, SIGTTIN and SIGTTOU before the process stops (newest
    /// first, on the watching thread: it must be quick and must not wait for the main thread).
    public func onSuspend(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.suspendHandlers.append(handler) }
    }

    /// Registers a handler run when the process continues (SIGCONT), in registration order.
    public func onResume(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.resumeHandlers.append(handler) }
    }

    /// How many times the process was continued (SIGCONT) so far.
    public var resumeCount: UInt64 { resumes.load(ordering: .acquiring) }

    /// Total time the process spent stopped by job control, on CLOCK_MONOTONIC: what a timeout
    /// that measures the program's own waiting (not the user's pause) takes off.
    public var stoppedNanoseconds: UInt64 { stopped.load(ordering: .acquiring) }

    /// Stops the process as Ctrl-Z would (SIGTSTP, so the suspend handlers run first); for a
    /// terminal in raw mode, where the key arrives as a byte. Returns once the process has been
    /// continued (or a stop is requested), so the caller cannot undo a handler's work, such as
    /// taking the terminal back, before the stop lands.
    public func suspend() {
        let seen = resumeCount
        _ = kill(getpid(), SIGTSTP)
        var none = pollfd()
        while resumeCount == seen && !stopRequested { _ = poll(&none, 0, 10) }
    }

    /// Stops the process, as the kernel's SIGTTIN would, until it is the foreground job of the
    /// terminal `fd` (or a stop is requested). Returns at once when `fd` is not a terminal or the
    /// process is in the foreground already.
    public func waitForForeground(of fd: Int32) {
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
    public func requestStop(signal: Int32 = SIGTERM) {
        guard !stop.exchange(true, ordering: .acquiringAndReleasing) else { return }
        received.store(signal, ordering: .releasing)
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
                // On another thread, so a handler that hangs cannot keep a second signal from exiting.
                let taken = signal
                spawnDetached { [self] in runHandlers(taken) }
            } else {
                runHandlers(signal)
                exitProcess(Self.forcedExitStatus)
            }
        }
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

/// The signal watcher could not be set up.
public struct SignalWatcherError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed and the likely cause.
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
