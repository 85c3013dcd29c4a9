#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// Turns SIGINT, SIGTERM and SIGHUP into a stop flag and shutdown callbacks, so a stopped program
/// never leaves the motor line high.
///
/// `start()` blocks those signals in the calling thread — call it first thing in `main`, before any
/// other thread exists, so every later thread inherits the mask — and starts a thread that takes
/// them with `sigwait`. No code runs inside a signal handler, so handlers may lock, allocate and
/// do I/O. On the first signal `stopRequested` becomes true and the `onStop` handlers run (newest
/// first) on a thread of their own; the program's loop should notice the flag and wind down. A second
/// signal runs the handlers again (they must be idempotent, like `HapticEngine.shutdown()`) and
/// exits at once with status 130.
public final class SignalWatcher: Sendable {
    /// The process's watcher.
    public static let shared = SignalWatcher()

    /// The signals taken: SIGINT, SIGTERM, SIGHUP.
    public static let terminationSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Exit status after a second signal: the shell's status for an interrupted program.
    public static let forcedExitStatus: Int32 = 130

    private struct State {
        var handlers: [@Sendable (Int32) -> Void] = []
        var started = false
        var thread: pthread_t?
    }

    private let stop = Atomic<Bool>(false)
    private let received = Atomic<Int32>(0)
    private let state = Mutex(State())
    private let exitProcess: @Sendable (Int32) -> Void

    /// `exitProcess` replaces `_exit` in tests.
    init(exitProcess: @escaping @Sendable (Int32) -> Void = { _exit($0) }) {
        self.exitProcess = exitProcess
    }

    /// Blocks the termination signals in the calling thread and starts the watching thread.
    /// Does nothing when already started.
    public func start() throws {
        let already = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started
        }
        if already { return }
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
            var signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { continue }
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

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in terminationSignals { sigaddset(&set, s) }
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
