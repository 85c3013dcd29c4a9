import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore

/// Time the process spends stopped (Ctrl-Z) during an outage is the user's pause, not the sensor's.
final class OutageJobControlTests: XCTestCase {
    /// Ticks until the loop gives up on an unplugged sensor, with the process stopped for
    /// `stoppedSeconds` of clock time starting 1 s after the board opened.
    private func ticksUntilGivingUp(stoppedSeconds: Double) throws -> UInt64 {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(chip: .mpu6050, script: "flat")
        board.simulation?.noise = false
        board.simulation?.faults = [SimulatedFault(at: 1.0, kind: .unplug, seconds: 60)]
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        var configuration = TiltLoop.Configuration(rateHz: 100)
        configuration.recovery.giveUpAfterSeconds = 2
        let stopStart: UInt64 = 2_000_000_000, stopLength = Nanoseconds.span(seconds: stoppedSeconds)
        configuration.stoppedNanoseconds = {
            let now = clock.nowNanoseconds()
            return now <= stopStart ? 0 : Swift.min(now - stopStart, stopLength)
        }
        let loop = session.makeLoop(configuration, haptics: nil)
        XCTAssertThrowsError(try loop.start(for: .seconds(30), observers: [LoopObserver(sample: { _, _ in })]).wait()) { error in
            XCTAssertTrue(error is SensorLostError, "\(error)")
        }
        return loop.scheduler.statistics.ticks
    }

    func testStoppedTimeDoesNotCountTowardsGivingUp() throws {
        let plain = try ticksUntilGivingUp(stoppedSeconds: 0)
        // Lost at 0.84 s loop time, given up at the first tick 2 s later.
        XCTAssertEqual(plain, 285)
        // A 3 s stop during the outage: 3 s (300 ticks at 100 Hz) later.
        XCTAssertEqual(try ticksUntilGivingUp(stoppedSeconds: 3), plain + 300)
    }
}
