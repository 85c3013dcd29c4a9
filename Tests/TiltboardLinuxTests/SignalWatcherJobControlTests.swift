import XCTest
import Glibc
import Synchronization
@testable import TiltboardLinux
import TiltboardTestSupport

final class SignalWatcherJobControlTests: XCTestCase {
    override func tearDown() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in SignalWatcher.terminationSignals + SignalWatcher.stopSignals + [SIGCONT] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    private func waitUntil(_ condition: () -> Bool) {
        pollUntil(timeout: 10, every: 0.001, condition)
    }

    func testStopSignalsRunTheSuspendHandlersBeforeTheStopAndContinueRunsTheResumeHandlers() throws {
        let calls = Mutex<[String]>([])
        let watcher = SignalWatcher(exitProcess: { _ in XCTFail("must not exit") },
                                    stopProcess: { calls.withLock { $0.append("SIGSTOP") } })
        watcher.onSuspend { calls.withLock { $0.append("terminal restored") } }
        watcher.onSuspend { calls.withLock { $0.append("motor off") } }
        watcher.onResume { calls.withLock { $0.append("motor resumed") } }
        try watcher.start()
        let thread = try XCTUnwrap(watcher.watcherThread)

        for (n, signal) in SignalWatcher.stopSignals.enumerated() {
            XCTAssertEqual(pthread_kill(thread, signal), 0)
            waitUntil { calls.withLock { $0.count } == 3 * (n + 1) }
        }
        // Newest handler first, and the process stops only after all of them.
        XCTAssertEqual(calls.withLock { $0 }, Array(repeating: ["motor off", "terminal restored", "SIGSTOP"], count: 3).flatMap { $0 })
        XCTAssertEqual(watcher.resumeCount, 0)
        XCTAssertEqual(watcher.stoppedNanoseconds, 0)

        XCTAssertEqual(pthread_kill(thread, SIGCONT), 0)
        waitUntil { watcher.resumeCount == 1 }
        waitUntil { calls.withLock { $0.last } == "motor resumed" }
        XCTAssertEqual(calls.withLock { $0.last }, "motor resumed")
        XCTAssertEqual(watcher.resumeCount, 1)
        XCTAssertGreaterThan(watcher.stoppedNanoseconds, 0, "the time from the stop to SIGCONT is counted")
        // A stop is not a termination.
        XCTAssertFalse(watcher.stopRequested)
        XCTAssertNil(watcher.signal)
    }

    func testStartBlocksTheJobControlSignals() throws {
        let watcher = SignalWatcher(exitProcess: { _ in }, stopProcess: {})
        try watcher.start()
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        for s in SignalWatcher.stopSignals + [SIGCONT] { XCTAssertEqual(sigismember(&current, s), 1, "signal \(s)") }
    }
}
