import XCTest
@testable import TiltboardDrivers
import TiltboardCore

/// The engine's side of job control: off at once on `suspend`, the effect's own timeline after `resume`.
final class HapticEngineSuspendTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testSuspendTurnsTheMotorOffAtOnceAndResumeFollowsTheEffectAgain() throws {
        let clock = ManualClock(startNanoseconds: 0)
        let line = RecordingLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock, startsThread: false)
        engine.play(try HapticEffect.pattern("1500,200"))
        engine.service(now: clock.nowNanoseconds())
        clock.set(nanoseconds: 500 * ms)
        engine.suspend()
        XCTAssertEqual(line.records.map(\.active), [true, false], "off at the moment of the suspend, without waiting for a service")
        XCTAssertEqual(line.records.last?.t, 500 * ms)

        // Stopped: whatever the effect asks, the line stays off.
        clock.set(nanoseconds: 1_000 * ms)
        engine.service(now: clock.nowNanoseconds())
        XCTAssertEqual(line.records.count, 2)

        // Continued while the effect's on-time still runs: on again, then off at its planned end.
        engine.resume()
        engine.service(now: clock.nowNanoseconds())
        clock.set(nanoseconds: 1_500 * ms)
        engine.service(now: clock.nowNanoseconds())
        XCTAssertEqual(line.records.map(\.active), [true, false, true, false])
        XCTAssertEqual(line.records.map(\.t), [0, 500 * ms, 1_000 * ms, 1_500 * ms])
        engine.shutdown()
    }

    func testAStopLongerThanTheEffectEndsIt() throws {
        let clock = ManualClock(startNanoseconds: 0)
        let line = RecordingLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock, startsThread: false)
        engine.play(try HapticEffect.pattern("1500,200"))
        engine.service(now: 0)
        clock.set(nanoseconds: 500 * ms)
        engine.suspend()
        clock.set(nanoseconds: 3_500 * ms)
        engine.resume()
        XCTAssertNil(engine.service(now: clock.nowNanoseconds()), "nothing left to play")
        XCTAssertEqual(line.records.map(\.active), [true, false])
        XCTAssertFalse(engine.isActive)
        engine.shutdown()
    }
}
