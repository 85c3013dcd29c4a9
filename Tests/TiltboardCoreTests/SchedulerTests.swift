import XCTest
import Synchronization
import TiltboardCore
import TiltboardTestSupport

/// A clock whose sleeps wake up late by a scripted amount, to give the loop known lateness.
final class LateClock: MonotonicClock {
    private let now = Mutex<UInt64>(0)
    private let lateness: [UInt64]
    private let wakes = Atomic<Int>(0)

    init(start: UInt64, lateness: [UInt64]) {
        now.withLock { $0 = start }
        self.lateness = lateness
    }
    func nowNanoseconds() -> UInt64 { now.withLock { $0 } }
    func sleep(untilNanoseconds deadline: UInt64) {
        let i = wakes.add(1, ordering: .relaxed).oldValue
        let late = i < lateness.count ? lateness[i] : 0
        now.withLock { $0 = Swift.max($0, deadline + late) }
    }
}

/// Shared between the test and the loop's thread.
private final class LoopProgress: Sendable {
    let ticks = Atomic<Int>(0)
    let ended = Atomic<Bool>(false)
}

final class SchedulerTests: XCTestCase {
    func testDeadlinesAreAbsoluteAndExact() {
        let clock = ManualClock(startNanoseconds: 5_000_000_000)
        let scheduler = FixedRateScheduler(rateHz: 100, clock: clock)
        var contexts: [TickContext] = []
        scheduler.run(shouldStop: { contexts.count == 10 }) { contexts.append($0) }
        XCTAssertEqual(contexts.count, 10)
        for (k, c) in contexts.enumerated() {
            XCTAssertEqual(c.index, UInt64(k))
            XCTAssertEqual(c.deadline, 5_000_000_000 + UInt64(k) * 10_000_000)
            XCTAssertEqual(c.wakeTime, c.deadline)
            XCTAssertEqual(c.dt, 0.01, accuracy: 1e-12)
            XCTAssertEqual(c.missedTicks, 0)
        }
        let stats = scheduler.statistics
        XCTAssertEqual(stats.ticks, 10)
        XCTAssertEqual(stats.missedTicks, 0)
        XCTAssertEqual(stats.latenessMaxNanoseconds, 0)
    }

    func testFractionalPeriodDoesNotDrift() {
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 3, clock: clock)
        var last = TickContext(index: 0, deadline: 0, wakeTime: 0, dt: 0, missedTicks: 0)
        scheduler.run(shouldStop: { last.index == 3000 }) { last = $0 }
        // 3000 periods of 1/3 s are exactly 1000 s.
        XCTAssertEqual(last.deadline, 1_000_000_000_000)
    }

    func testOverrunSkipsAheadKeepingPhaseAndCountsMissed() {
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 100, clock: clock)
        var contexts: [TickContext] = []
        scheduler.run(shouldStop: { contexts.count == 6 }) { c in
            contexts.append(c)
            if c.index == 2 { clock.advance(byNanoseconds: 25_000_000) } // 2.5 periods of work
        }
        XCTAssertEqual(contexts.map(\.deadline), [0, 10, 20, 50, 60, 70].map { UInt64($0) * 1_000_000 })
        XCTAssertEqual(contexts.map(\.missedTicks), [0, 0, 0, 2, 0, 0])
        // Woke at the 50 ms deadline itself: late by nothing, 30 ms after the previous wake.
        XCTAssertEqual(contexts[3].wakeTime, 50_000_000)
        XCTAssertEqual(contexts[3].dt, 0.03, accuracy: 1e-12)
        let stats = scheduler.statistics
        XCTAssertEqual(stats.ticks, 6)
        XCTAssertEqual(stats.missedTicks, 2)
        XCTAssertEqual(stats.overruns, 1)
    }

    func testWorkOfExactlyOnePeriodMissesNothing() {
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 100, clock: clock)
        var contexts: [TickContext] = []
        scheduler.run(shouldStop: { contexts.count == 3 }) { c in
            contexts.append(c)
            clock.advance(byNanoseconds: 10_000_000)
        }
        XCTAssertEqual(contexts.map(\.deadline), [0, 10_000_000, 20_000_000])
        XCTAssertEqual(scheduler.statistics.missedTicks, 0)
    }

    func testLatenessStatistics() {
        // Tick k wakes k µs late, k = 1…1000.
        let lateness = (1...1000).map { UInt64($0) * 1000 }
        let clock = LateClock(start: 0, lateness: lateness)
        let scheduler = FixedRateScheduler(rateHz: 100, clock: clock)
        var seen: [UInt64] = []
        scheduler.run(shouldStop: { seen.count == 1000 }) { seen.append($0.latenessNanoseconds) }
        XCTAssertEqual(seen, lateness)
        let stats = scheduler.statistics
        XCTAssertEqual(stats.ticks, 1000)
        XCTAssertEqual(stats.missedTicks, 0)
        // Bucket resolution is 1/32 of the octave: within 3.2 % above the exact value.
        XCTAssertGreaterThanOrEqual(stats.latenessP50Nanoseconds, 500_000)
        XCTAssertLessThanOrEqual(Double(stats.latenessP50Nanoseconds), 500_000 * 1.032)
        XCTAssertGreaterThanOrEqual(stats.latenessP99Nanoseconds, 990_000)
        XCTAssertLessThanOrEqual(Double(stats.latenessP99Nanoseconds), 990_000 * 1.032)
        XCTAssertEqual(stats.latenessMaxNanoseconds, 1_000_000)
        XCTAssertEqual(stats.latenessMeanNanoseconds, 500_500, accuracy: 1e-6)
        XCTAssertEqual(stats.description,
                       "ticks 1000, missed 0, lateness p50 \((stats.latenessP50Nanoseconds + 500) / 1000) µs p99 \((stats.latenessP99Nanoseconds + 500) / 1000) µs max 1000 µs")
    }

    func testStopEndsTheLoopBeforeTheNextTick() {
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 50, clock: clock)
        var ticks = 0
        scheduler.run { c in
            ticks += 1
            // Live statistics from inside the loop.
            XCTAssertEqual(scheduler.statistics.ticks, c.index + 1)
            if c.index == 4 { scheduler.stop() }
        }
        XCTAssertEqual(ticks, 5)
        XCTAssertEqual(clock.nowNanoseconds(), 80_000_000)
    }

    func testStopFromAnotherThread() {
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 1000, clock: clock)
        let progress = LoopProgress()
        Thread.detachNewThread {
            scheduler.run { _ in
                progress.ticks.add(1, ordering: .relaxed)
                if progress.ticks.load(ordering: .relaxed) > 10_000_000 { scheduler.stop() } // safety net
            }
            progress.ended.store(true, ordering: .releasing)
        }
        pollUntil(every: 0.001) { progress.ticks.load(ordering: .relaxed) >= 100 }
        scheduler.stop()
        pollUntil(timeout: 10, every: 0.001) { progress.ended.load(ordering: .acquiring) }
        XCTAssertTrue(progress.ended.load(ordering: .acquiring))
        XCTAssertGreaterThanOrEqual(scheduler.statistics.ticks, 100)
    }

    func testTickErrorsEndTheLoop() {
        struct Boom: Error {}
        let scheduler = FixedRateScheduler(rateHz: 100, clock: ManualClock())
        XCTAssertThrowsError(try scheduler.run { c in if c.index == 3 { throw Boom() } })
        XCTAssertEqual(scheduler.statistics.ticks, 4)
    }

    func testHistogramIsExactForSmallValuesAndBoundedAbove() {
        var h = LatencyHistogram()
        XCTAssertEqual(h.percentile(0.5), 0)
        for v in 0..<32 { h.record(UInt64(v)) }
        XCTAssertEqual(h.percentile(0.5), 15)
        XCTAssertEqual(h.percentile(1), 31)
        XCTAssertEqual(h.min, 0)
        for v: UInt64 in [33, 1_000, 123_456, 9_876_543_210, UInt64.max / 3] {
            var one = LatencyHistogram()
            one.record(v)
            one.record(0)
            XCTAssertEqual(one.percentile(1), v) // clamped to the max
            var many = LatencyHistogram()
            for _ in 0..<10 { many.record(v) }
            many.record(v * 2)
            let p = many.percentile(0.5)
            XCTAssertGreaterThanOrEqual(p, v)
            XCTAssertLessThanOrEqual(Double(p), Double(v) * (1 + 1.0 / 32))
        }
        h.reset()
        XCTAssertEqual(h.count, 0)
        XCTAssertEqual(h.percentile(0.99), 0)
    }

    func testDescriptionFormatsSmallAndOverrunValues() {
        let s = LoopStatistics(ticks: 12, missedTicks: 3, overruns: 2, latenessP50Nanoseconds: 4_460,
                               latenessP99Nanoseconds: 120_400, latenessMaxNanoseconds: 300_600)
        XCTAssertEqual(s.description, "ticks 12, missed 3 (2 overruns), lateness p50 4.5 µs p99 120 µs max 301 µs")
    }
}
