import XCTest
import Foundation
import TiltboardDrivers
import TiltboardCore

/// A line that counts levels without storing them, so the loop below allocates nothing itself.
final class CountingLine: GPIOOutputLine, @unchecked Sendable {
    let name = "counting line"
    var sets = 0
    func set(active: Bool) throws { sets += 1 }
    func release() {}
}

/// Posting prebuilt effects and servicing them, many times. Run under `valgrind` with two values
/// of TILTBOARD_HOT_PATH_ITERATIONS: equal allocation totals show posting allocates nothing.
final class HapticEngineHotPathTests: XCTestCase {
    func testPostAndServiceLoop() {
        let iterations = ProcessInfo.processInfo.environment["TILTBOARD_HOT_PATH_ITERATIONS"].flatMap { Int($0) } ?? 2000
        let clock = ManualClock()
        let line = CountingLine()
        let engine = HapticEngine(line: line, clock: clock, startsThread: false)
        let effects: [HapticEffect] = [.click, .doubleClick, .alarm, .pulse(ms: 30, strength: 0.5)]
        for i in 0..<iterations {
            engine.play(effects[i % effects.count])
            for _ in 0..<4 {
                guard let next = engine.service(now: clock.nowNanoseconds()) else { break }
                clock.set(nanoseconds: next)
            }
            if i % 7 == 0 { engine.cancel() }
        }
        engine.shutdown()
        XCTAssertGreaterThan(line.sets, iterations)
    }
}
