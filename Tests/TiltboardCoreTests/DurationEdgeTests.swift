import Foundation
import TiltboardCore
import XCTest

/// Spans given as `Duration` at the public edge land in the units the maths and the files keep.
final class DurationEdgeTests: XCTestCase {
    func testShakeSettingsTakeDurationsAndKeepTheirMillisecondKeys() throws {
        var s = ShakeDetectorSettings(cooldown: .milliseconds(800), minHalfCycle: .milliseconds(70),
                                      endQuiet: .seconds(1), gravityTimeConstant: .milliseconds(250))
        XCTAssertEqual(s.cooldownMs, 800)
        XCTAssertEqual(s.minHalfCycleMs, 70)
        XCTAssertEqual(s.endQuietMs, 1000)
        XCTAssertEqual(s.gravityMs, 250)
        XCTAssertEqual(s.cooldown, .milliseconds(800))

        s.highPass = .milliseconds(150)
        XCTAssertEqual(s.highPassMs, 150)
        XCTAssertEqual(ShakeDetectorSettings().cooldown, .milliseconds(500), "the default")

        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(s)) as? [String: Any]
        XCTAssertEqual(json?["cooldownMs"] as? Double, 800)
        XCTAssertEqual(json?["highPassMs"] as? Double, 150)
        XCTAssertNil(json?["cooldown"])
    }

    func testManualClockAdvancesByADuration() {
        let clock = ManualClock(startNanoseconds: 1_000)
        clock.advance(by: .milliseconds(5))
        XCTAssertEqual(clock.nowNanoseconds(), 5_001_000)
        clock.advance(by: .nanoseconds(7))
        XCTAssertEqual(clock.nowNanoseconds(), 5_001_007)
    }

    func testTrackerStepAndNeutralCaptureSpans() {
        var tracker = TiltTracker()
        XCTAssertEqual(tracker.maxStep, .milliseconds(100))
        tracker.maxStep = .milliseconds(40)
        XCTAssertEqual(tracker.maxStepSeconds, 0.04, accuracy: 1e-12)

        let settings = NeutralCapture.Settings(duration: .milliseconds(1500), timeout: .seconds(10))
        XCTAssertEqual(settings.still.duration, 1.5, accuracy: 1e-12)
        XCTAssertEqual(settings.still.timeout, 10, accuracy: 1e-12)
    }

    func testLoopLatenessReadsAsDurations() {
        let stats = LoopStatistics(ticks: 10, latenessP50Nanoseconds: 45_000, latenessP99Nanoseconds: 120_000,
                                   latenessMaxNanoseconds: 300_000, latenessMeanNanoseconds: 50_500)
        XCTAssertEqual(stats.latenessP50, .microseconds(45))
        XCTAssertEqual(stats.latenessP99, .microseconds(120))
        XCTAssertEqual(stats.latenessMax, .microseconds(300))
        XCTAssertEqual(stats.latenessMean, .nanoseconds(50_500))
    }

    func testAWaveformTakesDurationsAndPlaysMilliseconds() {
        let w = HapticWaveform(timings: [.milliseconds(20), .milliseconds(60), .microseconds(20_500)], repeatCount: 2)
        XCTAssertEqual(w.timingsMs, [20, 60, 20.5])
        XCTAssertEqual(w.cycle, .microseconds(100_500))
        XCTAssertEqual(w.timings, [.milliseconds(20), .milliseconds(60), .microseconds(20_500)])
        XCTAssertEqual(HapticEffect.doubleClick, .waveform(HapticWaveform(timings: [.milliseconds(20), .milliseconds(60), .milliseconds(20)])))
    }
}
