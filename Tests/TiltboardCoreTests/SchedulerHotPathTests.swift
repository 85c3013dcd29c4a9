import XCTest
import Foundation
import TiltboardCore

/// The per-tick path (scheduler → shake detector → haptic player) run many times. Run it under
/// `valgrind` with two values of TILTBOARD_HOT_PATH_ITERATIONS: equal allocation totals show the
/// path allocates nothing per tick.
final class SchedulerHotPathTests: XCTestCase {
    func testPerTickPathRuns() {
        let iterations = ProcessInfo.processInfo.environment["TILTBOARD_HOT_PATH_ITERATIONS"].flatMap { UInt64($0) } ?? 2000
        let clock = ManualClock()
        let scheduler = FixedRateScheduler(rateHz: 100, clock: clock)
        var detector = ShakeDetector()
        var player = HapticPlayer()
        let effect = HapticEffect.doubleClick
        var events = 0, onLevels = 0
        var ticks: UInt64 = 0
        var p99: UInt64 = 0
        scheduler.run(shouldStop: { ticks == iterations }) { c in
            ticks += 1
            // A live snapshot, as a status display would take.
            if ticks % 10 == 0 { p99 = scheduler.statistics.latenessP99Nanoseconds }
            let t = Nanoseconds.seconds(c.wakeTime)
            // A 4 Hz, 2 g shake every 3 s.
            let phase = t.truncatingRemainder(dividingBy: 3)
            let a = phase < 1 ? Vector3(2 * sin(2 * .pi * 4 * phase), 0, 1) : Vector3(0, 0, 1)
            if let e = detector.update(t: t, accel: a) {
                events += 1
                if e.phase == .started { player.play(effect, at: t) }
            }
            player.advance(to: t)
            if player.level(at: t) { onLevels += 1 }
            _ = player.nextChange(after: t)
        }
        XCTAssertEqual(scheduler.statistics.ticks, iterations)
        XCTAssertEqual(p99, 0)
        if iterations >= 2000 {
            XCTAssertGreaterThanOrEqual(events, 12)
            XCTAssertGreaterThan(onLevels, 0)
        }
    }
}
