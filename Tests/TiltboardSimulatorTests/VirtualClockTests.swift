import Foundation
import Synchronization
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest
import TiltboardTestSupport

private let ms: UInt64 = 1_000_000

/// Discrete-event time: the clock moves to the next deadline only when every taking-part thread
/// waits on it, and never because of a thread that does not take part.
final class VirtualClockTests: XCTestCase {
    func testASleepWithNobodyTakingPartJumpsToItsDeadline() {
        let clock = VirtualClock(startNanoseconds: 7)
        clock.sleep(untilNanoseconds: 5_000 * ms)
        XCTAssertEqual(clock.nowNanoseconds(), 5_000 * ms)
        clock.sleep(untilNanoseconds: 1_000 * ms)
        XCTAssertEqual(clock.nowNanoseconds(), 5_000 * ms, "time went backwards")
        XCTAssertEqual(clock.waitingThreads, 0)
    }

    func testTakingPartThreadsRunInDeadlineOrderAndWakeExactlyOnTime() throws {
        let clock = VirtualClock()
        let log = Mutex<[String]>([])
        // Both threads take part before time may move: the test thread holds it until they have.
        let gate = Gate(clock: clock, threads: 2)
        let done = DispatchGroup()
        for (name, period, count) in [("a", 3 * ms, 4), ("b", 5 * ms, 3)] {
            spawn(done) {
                clock.takingPart {
                    gate.arrive()
                    for k in 1...UInt64(count) {
                        clock.sleep(untilNanoseconds: k * period)
                        let now = clock.nowNanoseconds()
                        log.withLock { $0.append("\(name)\(now / ms)\(now == k * period ? "" : " late")") }
                    }
                }
            }
        }
        gate.open()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(log.withLock { $0 }, ["a3", "b5", "a6", "a9", "b10", "a12", "b15"])
        XCTAssertEqual(clock.nowNanoseconds(), 15 * ms)
        XCTAssertEqual(clock.runningThreads, 0)
    }

    func testARunningThreadThatTakesPartHoldsTimeStill() throws {
        let clock = VirtualClock()
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let times = Mutex<[String: UInt64]>([:])
        let done = DispatchGroup()
        spawn(done) {
            clock.takingPart {
                entered.signal()
                // Busy with something other than the clock: time must wait for it.
                release.wait()
                clock.sleep(untilNanoseconds: 2_000 * ms)
                times.withLock { $0["member"] = clock.nowNanoseconds() }
            }
        }
        entered.wait()
        spawn(done) {
            clock.sleep(untilNanoseconds: 1_000 * ms)
            times.withLock { $0["other"] = clock.nowNanoseconds() }
        }
        try waitUntil { clock.waitingThreads == 1 }
        XCTAssertEqual(clock.nowNanoseconds(), 0, "time moved while a taking-part thread ran")
        XCTAssertNil(times.withLock { $0["other"] })
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let t = times.withLock { $0 }
        XCTAssertEqual(t["member"], 2_000 * ms)
        // Not taking part, the other thread may see time already past its own deadline.
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(t["other"]), 1_000 * ms)
    }

    func testThreadsThatDoNotTakePartNeverHoldTimeBack() {
        let clock = VirtualClock()
        let finished = Atomic<UInt64>(0)
        let done = DispatchGroup()
        // The test thread stays busy (here: waiting on the group) without taking part.
        spawn(done) {
            clock.takingPart {
                clock.sleep(untilNanoseconds: 3_000 * ms)
                finished.store(clock.nowNanoseconds(), ordering: .releasing)
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(finished.load(ordering: .acquiring), 3_000 * ms)
    }

    func testASignalCountsTheWaiterAsRunningBeforeTimeMovesOn() throws {
        let clock = VirtualClock()
        let condition = clock.makeCondition()
        let state = Handshake()
        let times = Mutex<[String]>([])
        let gate = Gate(clock: clock, threads: 2)
        let done = DispatchGroup()
        spawn(done) {
            clock.takingPart {
                gate.arrive()
                condition.lock()
                state.waiting = true
                condition.broadcast()
                while !state.request { condition.wait(untilNanoseconds: nil) }
                condition.unlock()
                // Served at the instant it was asked for, however late this thread gets to run.
                times.withLock { $0.append("served at \(clock.nowNanoseconds() / ms)") }
                clock.sleep(untilNanoseconds: 500 * ms)
                times.withLock { $0.append("served slept to \(clock.nowNanoseconds() / ms)") }
            }
        }
        spawn(done) {
            clock.takingPart {
                gate.arrive()
                condition.lock()
                while !state.waiting { condition.wait(untilNanoseconds: nil) }
                state.request = true
                condition.signal()
                condition.unlock()
                clock.sleep(untilNanoseconds: 1_000 * ms)
                times.withLock { $0.append("asker slept to \(clock.nowNanoseconds() / ms)") }
            }
        }
        gate.open()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(times.withLock { $0 }, ["served at 0", "served slept to 500", "asker slept to 1000"])
    }

    func testATimedConditionWaitEndsAtItsDeadline() {
        let clock = VirtualClock(startNanoseconds: 100 * ms)
        let condition = clock.makeCondition()
        clock.takingPart {
            condition.lock()
            condition.wait(untilNanoseconds: 350 * ms)
            condition.unlock()
        }
        XCTAssertEqual(clock.nowNanoseconds(), 350 * ms)
        XCTAssertEqual(clock.runningThreads, 0)
    }

    func testNestedTakingPartCountsTheThreadOnce() {
        let clock = VirtualClock()
        clock.takingPart {
            clock.takingPart { XCTAssertEqual(clock.runningThreads, 1) }
            XCTAssertEqual(clock.runningThreads, 1)
            // Still taking part: a sleep is a wait of the only running thread, so time moves.
            clock.sleep(untilNanoseconds: 10 * ms)
        }
        XCTAssertEqual(clock.runningThreads, 0)
        XCTAssertEqual(clock.nowNanoseconds(), 10 * ms)
    }

    func testTheHapticEngineThreadPlaysOnVirtualTime() throws {
        let clock = VirtualClock(startNanoseconds: 1_000 * ms)
        let line = SimulatedGPIOLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock)
        defer { engine.shutdown() }
        clock.takingPart {
            engine.play(.doubleClick)
            // The engine runs the effect while this thread sleeps past its end.
            clock.sleep(untilNanoseconds: 1_500 * ms)
        }
        // 20 ms on, 60 off, 20 on, from the instant of the request.
        XCTAssertEqual(line.changes.map(\.t), [1.0, 1.02, 1.08, 1.1])
        XCTAssertEqual(line.changes.map(\.active), [true, false, true, false])
        XCTAssertFalse(engine.isActive)
    }

    // MARK: - helpers

    private func spawn(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { body(); group.leave() }.start()
    }

    /// Polls `condition` until it holds; fails after a generous minute.
    private func waitUntil(_ condition: () -> Bool) throws {
        guard pollUntil(every: 0, condition) else { throw ConditionNeverHeld() }
    }
}

private struct ConditionNeverHeld: Error {}

/// Two flags guarded by the test's condition.
private final class Handshake: @unchecked Sendable {
    var waiting = false
    var request = false
}

/// Lets `threads` threads take part in `clock` before time may move: a thread of its own takes
/// part from `init` until all have arrived.
private final class Gate: @unchecked Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)
    private let holding = DispatchSemaphore(value: 0)

    init(clock: VirtualClock, threads: Int) {
        Thread { [self] in
            clock.takingPart {
                holding.signal()
                for _ in 0..<threads { arrived.wait() }
            }
            opened.signal()
        }.start()
        holding.wait()
    }

    /// Called by each thread once it takes part.
    func arrive() { arrived.signal() }

    /// Waits until every thread has arrived and the gate has stopped holding time.
    func open() { opened.wait() }
}

/// `settle()`: a thread sees what every other taking-part thread does at the same instant.
final class VirtualClockSettleTests: XCTestCase {
    func testSettleWaitsForEveryThreadDueAtTheSameInstant() {
        for _ in 0..<50 {
            let clock = VirtualClock()
            let flag = Atomic<Bool>(false)
            let seen = Atomic<Bool>(false)
            let started = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            done.enter()
            clock.takingPart {
                // Both due at 10 ms: the other thread sets the flag after some work, this one
                // settles, then reads it.
                Thread {
                    clock.takingPart {
                        started.signal()
                        clock.sleep(untilNanoseconds: 10 * ms)
                        for _ in 0..<1000 { sched_yield() }
                        flag.store(true, ordering: .releasing)
                        clock.sleep(untilNanoseconds: 20 * ms)
                    }
                    done.leave()
                }.start()
                started.wait()
                clock.sleep(untilNanoseconds: 10 * ms)
                clock.settle()
                seen.store(flag.load(ordering: .acquiring), ordering: .relaxed)
                XCTAssertEqual(clock.nowNanoseconds(), 10 * ms, "settle moved time")
            }
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
            XCTAssertTrue(seen.load(ordering: .relaxed))
        }
    }
}
