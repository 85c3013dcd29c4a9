import XCTest
import Glibc
import Synchronization
import TiltboardCore
@testable import TiltboardLinux
import TiltboardTestSupport

/// Shared with the sleeping thread.
private final class SleeperState: Sendable {
    let thread = Mutex<pthread_t?>(nil)
    let woke = Atomic<UInt64>(0)
}

/// Shared with the thread trying realtime scheduling: (note, policy, policy after, finished).
private final class RealtimeResult: Sendable {
    let value = Mutex<(RealtimeShortfall?, Int32, Int32, Bool)>((nil, -1, -1, false))
    let childPolicy = Mutex<Int32>(-1)
}

final class LinuxClockTests: XCTestCase {
    func testMonotonicAndSleepsToAbsoluteDeadline() {
        let clock = LinuxMonotonicClock()
        let a = clock.nowNanoseconds(), b = clock.nowNanoseconds()
        XCTAssertGreaterThan(a, 0)
        XCTAssertGreaterThanOrEqual(b, a)
        let deadline = clock.nowNanoseconds() + 3_000_000
        clock.sleep(untilNanoseconds: deadline)
        XCTAssertGreaterThanOrEqual(clock.nowNanoseconds(), deadline)
        // A deadline in the past returns without sleeping (and without failing).
        clock.sleep(untilNanoseconds: 1)
    }

    func testConditionWaitsOnTheMonotonicClock() {
        let clock = LinuxMonotonicClock()
        let condition = clock.makeCondition()
        XCTAssertTrue(condition is MonotonicCondition, "timed waits must not run on the wall clock")
        // A timed wait with nobody signalling ends at its deadline, never before it (spurious
        // wake-ups aside, which the loop absorbs as a caller's loop would).
        let deadline = clock.nowNanoseconds() + 5_000_000
        condition.lock()
        while clock.nowNanoseconds() < deadline { condition.wait(untilNanoseconds: deadline) }
        condition.unlock()
        XCTAssertGreaterThanOrEqual(clock.nowNanoseconds(), deadline)
        // A deadline already passed returns at once.
        condition.lock()
        condition.wait(untilNanoseconds: 1)
        condition.unlock()
    }

    func testConditionSignalWakesAWaiterWithoutADeadline() {
        let condition = LinuxMonotonicClock().makeCondition()
        let state = SleeperState()
        let woke = DispatchSemaphore(value: 0)
        let waiter = Thread {
            condition.lock()
            while state.woke.load(ordering: .acquiring) == 0 { condition.wait(untilNanoseconds: nil) }
            condition.unlock()
            woke.signal()
        }
        waiter.start()
        condition.lock()
        state.woke.store(1, ordering: .releasing)
        condition.signal()
        condition.unlock()
        XCTAssertEqual(woke.wait(timeout: .now() + 60), .success)
    }

    func testSleepResumesAfterSignalInterrupts() {
        // A handler that does nothing makes clock_nanosleep return EINTR instead of killing us.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0 // no SA_RESTART: the sleep really is interrupted
        var old = sigaction()
        XCTAssertEqual(sigaction(SIGUSR1, &action, &old), 0)
        defer { sigaction(SIGUSR1, &old, nil) }

        let clock = LinuxMonotonicClock()
        let deadline = clock.nowNanoseconds() + 300_000_000
        let sleeper = SleeperState()
        Thread.detachNewThread {
            sleeper.thread.withLock { $0 = pthread_self() }
            clock.sleep(untilNanoseconds: deadline)
            sleeper.woke.store(clock.nowNanoseconds(), ordering: .releasing)
        }
        var target: pthread_t?
        pollUntil(every: 0.001) { target = sleeper.thread.withLock { $0 }; return target != nil }
        for _ in 0..<5 {
            usleep(20_000)
            if sleeper.woke.load(ordering: .acquiring) == 0 { pthread_kill(target!, SIGUSR1) }
        }
        pollUntil(timeout: 10, every: 0.001) { sleeper.woke.load(ordering: .acquiring) != 0 }
        XCTAssertGreaterThanOrEqual(sleeper.woke.load(ordering: .acquiring), deadline)
    }

    func testSchedulerRunsOnTheRealClock() {
        let scheduler = FixedRateScheduler(rateHz: 1000, clock: LinuxMonotonicClock())
        var deadlines: [UInt64] = []
        var skipped: UInt64 = 0
        scheduler.run(shouldStop: { deadlines.count == 500 }) { c in
            deadlines.append(c.deadline)
            skipped += c.missedTicks
            XCTAssertGreaterThanOrEqual(c.wakeTime, c.deadline)
        }
        let stats = scheduler.statistics
        XCTAssertEqual(stats.ticks, 500)
        // Informational only: this machine is shared, nothing is asserted about timing.
        print("1 kHz loop on CLOCK_MONOTONIC: \(stats)")
        // Every deadline sits on the 1 ms grid from the first, whatever was skipped.
        for d in deadlines { XCTAssertEqual((d - deadlines[0]) % 1_000_000, 0) }
        // The ticks run and the deadlines skipped before them fill the grid between the first and
        // the last (the totals also count any deadline the last tick overran).
        XCTAssertEqual(UInt64(deadlines.count) + skipped, (deadlines.last! - deadlines[0]) / 1_000_000 + 1)
        XCTAssertGreaterThanOrEqual(stats.missedTicks, skipped)
    }

    func testRealtimeEitherWorksOrSaysWhy() {
        // On a thread of its own, which ends right after, so nothing else runs under SCHED_FIFO.
        let result = RealtimeResult()
        Thread.detachNewThread {
            let note = Realtime.enable(priority: 1)
            let policy = Realtime.currentPolicy().policy
            // A thread started from the real-time one runs under normal scheduling.
            let child = RealtimeResult()
            Thread.detachNewThread {
                let policy = Realtime.currentPolicy().policy
                child.value.withLock { $0 = (nil, policy, policy, true) }
            }
            pollUntil(timeout: 10, every: 0.001) { child.value.withLock { $0.3 } }
            Realtime.disable()
            let childPolicy = child.value.withLock { $0.1 }
            result.value.withLock { $0 = (note, policy, Realtime.currentPolicy().policy, true) }
            result.childPolicy.withLock { $0 = childPolicy }
        }
        pollUntil(timeout: 10, every: 0.001) { result.value.withLock { $0.3 } }
        let (note, policy, after, finished) = result.value.withLock { $0 }
        XCTAssertTrue(finished)
        XCTAssertEqual(result.childPolicy.withLock { $0 }, SCHED_OTHER)
        print("Realtime.enable(priority: 1): \(note.map { "\($0)" } ?? "enabled")")
        if let note {
            XCTAssertTrue(note.schedulingErrno != nil || note.memoryLockErrno != nil, "\(note)")
            if let e = note.schedulingErrno { XCTAssertNotEqual(e, 0) } else { XCTAssertEqual(policy, SCHED_FIFO) }
        } else {
            XCTAssertEqual(policy, SCHED_FIFO)
        }
        XCTAssertEqual(after, SCHED_OTHER)
    }
}

final class TimerSlackTests: XCTestCase {
    func testTighteningTheTimerSlackIsAccepted() throws {
        // PR_SET_TIMERSLACK needs no privilege; the effect is measured by `tiltboard bench`.
        let done = expectation(description: "thread ran")
        nonisolated(unsafe) var accepted = false
        let thread = Thread {
            accepted = Realtime.tightenTimerSlack()
            done.fulfill()
        }
        thread.start()
        wait(for: [done], timeout: 5)
        XCTAssertTrue(accepted)
    }
}
