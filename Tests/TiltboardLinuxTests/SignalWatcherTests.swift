import XCTest
import Glibc
import Synchronization
@testable import TiltboardLinux
import TiltboardTestSupport

/// What handlers saw, shared with the watcher's threads.
private final class Log<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    func append(_ item: T) { items.withLock { $0.append(item) } }
    var entries: [T] { items.withLock { $0 } }
}

private func SIGRTMIN_(_ n: Int32) -> Int32 { 34 + n }

final class SignalWatcherTests: XCTestCase {
    override func tearDown() {
        // start() blocked these on the test thread; give the test runner its usual behaviour back.
        var set = sigset_t()
        sigemptyset(&set)
        for s in SignalWatcher.terminationSignals { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    func waitUntil(_ condition: () -> Bool) {
        pollUntil(timeout: 5, every: 0.001, condition)
    }

    func testSignalSetsFlagRunsHandlersAndSecondSignalExits130() throws {
        let exits = Log<Int32>()
        let calls = Log<String>()
        let watcher = SignalWatcher(exitProcess: { code in exits.append(code) })
        watcher.onStop { s in calls.append("motor off \(s)") }
        watcher.onStop { s in calls.append("save \(s)") }
        try watcher.start()
        try watcher.start() // second start does nothing
        XCTAssertFalse(watcher.stopRequested)
        XCTAssertNil(watcher.signal)

        let thread = try XCTUnwrap(watcher.watcherThread)
        XCTAssertEqual(pthread_kill(thread, SIGHUP), 0)
        waitUntil { calls.entries.count == 2 }
        XCTAssertTrue(watcher.stopRequested)
        XCTAssertEqual(watcher.signal, SIGHUP)
        // Newest first, like a shutdown in reverse start order.
        XCTAssertEqual(calls.entries, ["save \(SIGHUP)", "motor off \(SIGHUP)"])
        XCTAssertEqual(exits.entries, [])

        XCTAssertEqual(pthread_kill(thread, SIGTERM), 0)
        waitUntil { exits.entries.count == 1 }
        XCTAssertEqual(exits.entries, [130])
        XCTAssertEqual(calls.entries.suffix(2), ["save \(SIGTERM)", "motor off \(SIGTERM)"])
        XCTAssertEqual(watcher.signal, SIGHUP)
    }

    /// The signals a thread's mask can hold here: all but SIGKILL and SIGSTOP on a kernel, fewer
    /// under qemu-user, which keeps the highest real-time signals for itself (61–64 on aarch64).
    private static func signalsThisSystemCanBlock() -> Set<Int32> {
        final class Box: @unchecked Sendable { var set = Set<Int32>() }
        let box = Box()
        var thread = pthread_t()
        let context = Unmanaged.passRetained(box).toOpaque()
        pthread_create(&thread, nil, { arg in
            let box = Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue()
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_BLOCK, &all, nil)
            var current = sigset_t()
            pthread_sigmask(SIG_BLOCK, nil, &current)
            for s in Int32(1)...64 where sigismember(&current, s) == 1 { box.set.insert(s) }
            return nil
        }, context)
        pthread_join(thread, nil)
        return box.set
    }

    func testStartBlocksTerminationSignalsInCallingThread() throws {
        let watcher = SignalWatcher(exitProcess: { _ in })
        try watcher.start()
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        let blockable = Self.signalsThisSystemCanBlock()
        for s in SignalWatcher.terminationSignals where blockable.contains(s) {
            // Swift's crash handler suspends threads with one of these: they stay unblocked and
            // reach the watcher through a handler.
            let forwarded = SignalWatcher.forwardedSignals.contains(s)
            XCTAssertEqual(sigismember(&current, s), forwarded ? 0 : 1, "signal \(s)")
        }
        XCTAssertEqual(SignalWatcher.forwardedSignals, [SIGUSR1, SIGUSR2, SIGPROF])
        for s in SignalWatcher.forwardedSignals + CrashFailSafe.crashSignals where s != SIGQUIT {
            var action = sigaction()
            sigaction(s, nil, &action)
            XCTAssertNotEqual(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self), 0, "signal \(s) has a handler")
        }
    }

    func testStopStatusIsZeroForARequestAnd128PlusTheSignalOtherwise() {
        XCTAssertEqual(SignalWatcher.exitStatus(afterStopBy: nil), 0)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { XCTAssertEqual(SignalWatcher.exitStatus(afterStopBy: s), 0) }
        XCTAssertEqual(SignalWatcher.exitStatus(afterStopBy: SIGUSR1), 138)
        XCTAssertEqual(SignalWatcher.exitStatus(afterStopBy: SIGRTMIN_(3)), 165)
        XCTAssertEqual(SignalWatcher.terminationSignals.count, 3 + 10 + 31)
    }

    func testRequestStopAndLateHandlers() {
        let watcher = SignalWatcher(exitProcess: { _ in XCTFail("must not exit") })
        let calls = Log<Int32>()
        watcher.onStop { s in calls.append(s) }
        watcher.requestStop(signal: SIGINT)
        watcher.requestStop(signal: SIGTERM)
        XCTAssertTrue(watcher.stopRequested)
        XCTAssertEqual(watcher.signal, SIGINT)
        XCTAssertEqual(calls.entries, [SIGINT])
        // Registered too late: runs straight away.
        watcher.onStop { s in calls.append(-s) }
        XCTAssertEqual(calls.entries, [SIGINT, -SIGINT])
    }
}
