import XCTest
import Foundation
import Synchronization
@testable import TiltboardDrivers
import TiltboardCore
import TiltboardTestSupport

/// A GPIO line that records every level set, stamped with the clock's time.
final class RecordingLine: GPIOOutputLine, @unchecked Sendable {
    let name = "test line 17"
    let clock: MonotonicClock
    private let lock = NSLock()
    private var _records: [(t: UInt64, active: Bool)] = []
    private var _released = 0
    private var _failNext = false

    init(clock: MonotonicClock) { self.clock = clock }

    private func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock.lock(); defer { lock.unlock() }
        return try body()
    }

    var records: [(t: UInt64, active: Bool)] { locked { _records } }
    var releaseCount: Int { locked { _released } }
    var isActive: Bool { locked { _records.last?.active ?? false } }
    func failNextSet() { locked { _failNext = true } }

    func set(active: Bool) throws {
        try locked {
            if _failNext {
                _failNext = false
                throw GPIOError(.failed(.setLevel, line: "test line 17", errno: 5))
            }
            _records.append((clock.nowNanoseconds(), active))
        }
    }

    func release() {
        locked {
            _records.append((clock.nowNanoseconds(), false))
            _released += 1
        }
    }
}

/// The system's monotonic clock, for the one test that runs the engine's own thread.
final class UptimeClock: MonotonicClock {
    func nowNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    func sleep(untilNanoseconds deadline: UInt64) {
        let now = nowNanoseconds()
        if deadline > now { Thread.sleep(forTimeInterval: Nanoseconds.seconds(from: now, to: deadline)) }
    }
}

private let ms: UInt64 = 1_000_000

final class HapticEngineTests: XCTestCase {
    var clock: ManualClock!
    var line: RecordingLine!
    var engine: HapticEngine!

    override func setUp() {
        clock = ManualClock(startNanoseconds: 1_000 * ms)
        line = RecordingLine(clock: clock)
        engine = HapticEngine(line: line, clock: clock, startsThread: false)
    }

    /// Steps the engine the way its thread does, jumping the manual clock to each change.
    func run(until end: UInt64) {
        var steps = 0
        while let next = engine.service(now: clock.nowNanoseconds()), next <= end {
            XCTAssertGreaterThan(next, clock.nowNanoseconds())
            clock.set(nanoseconds: next)
            steps += 1
            if steps > 100_000 { XCTFail("runaway"); return }
        }
        clock.set(nanoseconds: end)
        engine.service(now: end)
    }

    /// Records relative to 1 s, in milliseconds.
    var edges: [(Double, Bool)] {
        line.records.map { (Double($0.t) / 1e6 - 1000, $0.active) }
    }

    func assertEdges(_ expected: [(Double, Bool)], file: StaticString = #filePath, line l: UInt = #line) {
        let actual = edges
        XCTAssertEqual(actual.count, expected.count, "\(actual)", file: file, line: l)
        for (a, e) in zip(actual, expected) {
            XCTAssertEqual(a.0, e.0, accuracy: 1e-6, "\(actual)", file: file, line: l)
            XCTAssertEqual(a.1, e.1, "\(actual)", file: file, line: l)
        }
    }

    func testPulse() {
        engine.play(.pulse(ms: 150))
        XCTAssertTrue(engine.isActive)
        run(until: 2_000 * ms)
        assertEdges([(0, true), (150, false)])
        XCTAssertFalse(engine.isActive)
        XCTAssertNil(engine.lastError)
    }

    func testWaveformWithRepeat() throws {
        engine.play(try HapticEffect.pattern("100,50,30,20", repeat: 2))
        run(until: 2_000 * ms)
        assertEdges([(0, true), (100, false), (150, true), (180, false), (200, true), (300, false), (350, true), (380, false)])
    }

    func testPresets() {
        engine.play(.doubleClick)
        run(until: 1_500 * ms)
        engine.play(.alarm)
        run(until: 5_000 * ms)
        var expected: [(Double, Bool)] = [(0, true), (20, false), (80, true), (100, false)]
        for k in 0..<5 {
            expected.append((500 + 400 * Double(k), true))
            expected.append((700 + 400 * Double(k), false))
        }
        assertEdges(expected)
    }

    func testNewEffectPreempts() {
        engine.play(.buzz)
        engine.service(now: clock.nowNanoseconds())
        clock.advance(byNanoseconds: 100 * ms)
        engine.play(.click)
        run(until: 2_000 * ms)
        // Already on: the click keeps it on for its own 20 ms.
        assertEdges([(0, true), (120, false)])
    }

    func testCancel() {
        engine.play(.alarm)
        engine.service(now: clock.nowNanoseconds())
        clock.advance(byNanoseconds: 50 * ms)
        engine.cancel()
        run(until: 3_000 * ms)
        assertEdges([(0, true), (50, false)])
        XCTAssertFalse(engine.isActive)
    }

    func testPWMDuty() {
        engine.play(.pulse(ms: 100, strength: 0.3))
        run(until: 2_000 * ms)
        let e = edges
        XCTAssertEqual(e.count, 40)
        var onTime = 0.0
        for k in stride(from: 0, to: e.count - 1, by: 2) {
            XCTAssertTrue(e[k].1); XCTAssertFalse(e[k + 1].1)
            XCTAssertEqual(e[k].0, 5 * Double(k / 2), accuracy: 1e-6)
            onTime += e[k + 1].0 - e[k].0
        }
        XCTAssertEqual(onTime, 30, accuracy: 1e-4)
    }

    func testShutdownLeavesLineInactiveAndReleased() {
        engine.play(.buzz)
        engine.service(now: clock.nowNanoseconds())
        XCTAssertTrue(line.isActive)
        engine.shutdown()
        XCTAssertFalse(line.isActive)
        XCTAssertEqual(line.releaseCount, 1)
        XCTAssertFalse(engine.isActive)
        engine.shutdown()
        XCTAssertEqual(line.releaseCount, 1)
        let count = line.records.count
        engine.play(.buzz)
        XCTAssertFalse(engine.isActive)
        XCTAssertNil(engine.service(now: clock.nowNanoseconds()))
        XCTAssertEqual(line.records.count, count)
    }

    func testLineFailureIsReportedAndMotorLeftOff() {
        line.failNextSet()
        engine.play(.buzz)
        run(until: 2_000 * ms)
        XCTAssertEqual((engine.lastError as? GPIOError)?.problem, .failed(.setLevel, line: "test line 17", errno: 5))
        assertEdges([(0, false)])
        XCTAssertFalse(engine.isActive)
    }

    func testOwnThreadPlaysAndShutsDown() {
        let clock = UptimeClock()
        let line = RecordingLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock)
        // The line is driven inactive as the engine starts, before any effect.
        XCTAssertEqual(line.records.map(\.active), [false])
        engine.play(.doubleClick)
        pollUntil(timeout: 10) { line.records.count >= 5 }
        XCTAssertEqual(line.records.map(\.active), [false, true, false, true, false])
        engine.play(.buzz)
        pollUntil(timeout: 10) { line.isActive }
        XCTAssertTrue(line.isActive)
        engine.shutdown()
        XCTAssertFalse(line.isActive)
        XCTAssertEqual(line.releaseCount, 1)
        let records = line.records
        // Ordering only: on/off pairs in sequence, times never decreasing.
        for (a, b) in zip(records, records.dropFirst()) { XCTAssertLessThanOrEqual(a.t, b.t) }
    }
}
