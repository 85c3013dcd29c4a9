import XCTest
import Glibc
import Synchronization
@testable import TiltboardLinux

final class SignalWatcherTests: XCTestCase {
    override func tearDown() {
        // start() blocked these on the test thread; give the test runner its usual behaviour back.
        var set = sigset_t()
        sigemptyset(&set)
        for s in SignalWatcher.terminationSignals { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    func waitUntil(_ condition: () -> Bool) {
        for _ in 0..<5000 where !condition() { usleep(1000) }
    }

    func testSignalSetsFlagRunsHandlersAndSecondSignalExits130() throws {
        let exits = Mutex<[Int32]>([])
        let calls = Mutex<[String]>([])
        let watcher = SignalWatcher(exitProcess: { code in exits.withLock { $0.append(code) } })
        watcher.onStop { s in calls.withLock { $0.append("motor off \(s)") } }
        watcher.onStop { s in calls.withLock { $0.append("save \(s)") } }
        try watcher.start()
        try watcher.start() // second start does nothing
        XCTAssertFalse(watcher.stopRequested)
        XCTAssertNil(watcher.signal)

        let thread = try XCTUnwrap(watcher.watcherThread)
        XCTAssertEqual(pthread_kill(thread, SIGHUP), 0)
        waitUntil { calls.withLock { $0.count } == 2 }
        XCTAssertTrue(watcher.stopRequested)
        XCTAssertEqual(watcher.signal, SIGHUP)
        // Newest first, like a shutdown in reverse start order.
        XCTAssertEqual(calls.withLock { $0 }, ["save \(SIGHUP)", "motor off \(SIGHUP)"])
        XCTAssertEqual(exits.withLock { $0 }, [])

        XCTAssertEqual(pthread_kill(thread, SIGTERM), 0)
        waitUntil { exits.withLock { $0.count } == 1 }
        XCTAssertEqual(exits.withLock { $0 }, [130])
        XCTAssertEqual(calls.withLock { $0 }.suffix(2), ["save \(SIGTERM)", "motor off \(SIGTERM)"])
        XCTAssertEqual(watcher.signal, SIGHUP)
    }

    func testStartBlocksTerminationSignalsInCallingThread() throws {
        let watcher = SignalWatcher(exitProcess: { _ in })
        try watcher.start()
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        for s in SignalWatcher.terminationSignals { XCTAssertEqual(sigismember(&current, s), 1, "signal \(s)") }
    }

    func testRequestStopAndLateHandlers() {
        let watcher = SignalWatcher(exitProcess: { _ in XCTFail("must not exit") })
        let calls = Mutex<[Int32]>([])
        watcher.onStop { s in calls.withLock { $0.append(s) } }
        watcher.requestStop(signal: SIGINT)
        watcher.requestStop(signal: SIGTERM)
        XCTAssertTrue(watcher.stopRequested)
        XCTAssertEqual(watcher.signal, SIGINT)
        XCTAssertEqual(calls.withLock { $0 }, [SIGINT])
        // Registered too late: runs straight away.
        watcher.onStop { s in calls.withLock { $0.append(-s) } }
        XCTAssertEqual(calls.withLock { $0 }, [SIGINT, -SIGINT])
    }
}
