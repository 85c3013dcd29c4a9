import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The haptic engine on a simulated board's motor line, stepped on a `ManualClock`: edges at the
/// right times, pre-emption, cancel, the on-time cap, the motor log, and shake → motor timing.
final class HapticLineTests: XCTestCase {
    /// Where the tests' time starts, after the session's configuration waits.
    private let t0: UInt64 = 10_000_000_000

    /// A simulated board's motor, with its changes appended to a log in a scratch folder.
    private func motor(maxOnSeconds: Double = 2, minRestSeconds: Double = 0.5) throws -> (HapticEngine, SimulatedGPIOLine, ManualClock, String) {
        let folder = try makeScratchFolder(self)
        var board = BoardDescription.builtInSimulated()
        board.motor?.maxOnSeconds = maxOnSeconds
        board.motor?.minRestSeconds = minRestSeconds
        board.simulation?.motorLog = folder + "/motor.log"
        let clock = ManualClock(startNanoseconds: 5_000_000_000)
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        addTeardownBlock { session.close() }
        XCTAssertLessThan(clock.nowNanoseconds(), t0)
        clock.set(nanoseconds: t0)
        let line = try XCTUnwrap(try session.openMotor() as? SimulatedGPIOLine)
        let engine = HapticEngine(line: line, clock: clock, cap: try XCTUnwrap(board.motor).cap, startsThread: false)
        addTeardownBlock { engine.shutdown() }
        return (engine, line, clock, folder + "/motor.log")
    }

    /// Services the engine at every change it asks for, up to `seconds` after `t0`.
    private func drive(_ engine: HapticEngine, _ clock: ManualClock, until seconds: Double) {
        driveEngine(engine, clock, to: t0 + Nanoseconds.span(seconds: seconds))
    }

    private func edges(_ line: SimulatedGPIOLine) -> [String] { motorEdges(line, since: t0) }

    func testPatternEdgesLandOnTheirTimesAndInTheMotorLog() throws {
        let (engine, line, clock, log) = try motor()
        engine.play(try HapticEffect.pattern("100,50,100"))
        drive(engine, clock, until: 1)
        XCTAssertEqual(edges(line), ["0 on", "100 off", "150 on", "250 off"])
        XCTAssertFalse(engine.isActive)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines, ["10.000000 1", "10.100000 0", "10.150000 1", "10.250000 0"])
    }

    func testANewEffectPreemptsThePlayingOne() throws {
        let (engine, line, clock, _) = try motor()
        engine.play(.buzz)                      // 400 ms
        drive(engine, clock, until: 0.1)
        engine.play(.click)                     // 20 ms from now, no gap: the motor simply stays on
        drive(engine, clock, until: 0.3)
        engine.play(.alarm)                     // 200 on / 200 off …
        drive(engine, clock, until: 0.6)
        engine.play(.tick)                      // … pre-empted in its off-time: on again at once, and no more alarm
        drive(engine, clock, until: 2)
        XCTAssertEqual(edges(line), ["0 on", "120 off", "300 on", "500 off", "600 on", "610 off"])
    }

    func testCancelTurnsTheMotorOffAtOnce() throws {
        let (engine, line, clock, _) = try motor()
        engine.play(.alarm)
        drive(engine, clock, until: 0.1)
        XCTAssertTrue(line.isActive)
        engine.cancel()
        drive(engine, clock, until: 3)
        XCTAssertEqual(edges(line), ["0 on", "100 off"])
        XCTAssertFalse(engine.isActive)
        XCTAssertEqual(engine.capTrips, 0)
    }

    /// The board's cap: 0.5 s on, then a 0.3 s rest, and the effect resumes; every edge in the log.
    func testTheBoardsCapRestsTheMotorAndTheEffectResumes() throws {
        let (engine, line, clock, log) = try motor(maxOnSeconds: 0.5, minRestSeconds: 0.3)
        engine.play(try HapticEffect.pattern("1500"))
        drive(engine, clock, until: 2)
        // The effect ends at 1500, inside the second rest.
        XCTAssertEqual(edges(line), ["0 on", "500 off", "800 on", "1300 off"])
        XCTAssertEqual(engine.capTrips, 2)
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8),
                       "10.000000 1\n10.500000 0\n10.800000 1\n11.300000 0\n")
    }

    /// Gaps shorter than the rest (here 100 ms against the default 0.5 s) do not reset the count:
    /// 1.5 s + 0.5 s, a rest, then the pattern again from where its timeline is.
    func testTheDefaultCapIsTwoSecondsAndShortGapsDoNotResetIt() throws {
        let (engine, line, clock, _) = try motor()
        engine.play(try HapticEffect.pattern("1500,100", repeat: nil))
        drive(engine, clock, until: 5)
        XCTAssertEqual(edges(line), ["0 on", "1500 off", "1600 on", "2100 off", "2600 on", "3100 off", "3200 on", "4700 off"])
        XCTAssertEqual(engine.capTrips, 2)
        XCTAssertTrue(engine.isActive)
    }

    func testShutdownLeavesTheLineOffAndReleased() throws {
        let (engine, line, clock, log) = try motor()
        engine.play(.buzz)
        drive(engine, clock, until: 0.2)
        XCTAssertTrue(line.isActive)
        engine.shutdown()
        XCTAssertFalse(line.isActive)
        XCTAssertTrue(line.isReleased)
        XCTAssertEqual(try String(contentsOfFile: log, encoding: .utf8), "10.000000 1\n10.200000 0\n")
        engine.play(.buzz)
        XCTAssertNil(engine.service(now: clock.nowNanoseconds()))
        XCTAssertFalse(line.isActive)
    }

    /// TiltLoop posts the shake effect right after the pipeline; serviced on the next loop step at
    /// the latest, the motor is on within one loop period of the detecting sample.
    func testAShakeTurnsTheMotorOnWithinOneLoopPeriodOnBothChips() throws {
        let folder = try makeScratchFolder(self)
        for chip in [ChipKind.mpu6050, .adxl345] {
            for rate in [100.0, 50.0] {
                var board = try ShakeHarness.board(chip: chip, script: MotionScript.builtIn(named: "shake")!, folder: folder)
                board.motor?.shakeEffect = .doubleClick
                let run = try ShakeHarness.run(board, seconds: 3.5, rateHz: rate, motor: true)
                let label = "\(chip.partName) at \(rate) Hz"
                let start = try XCTUnwrap(run.starts.first, label)
                XCTAssertEqual(run.starts.count, 1, label)
                XCTAssertEqual(run.motorChanges.map(\.active), [true, false, true, false], label)
                guard run.motorChanges.count == 4 else { continue }
                let on = run.motorChanges[0].t
                XCTAssertGreaterThanOrEqual(on, start.scriptT - 1e-9, label)
                XCTAssertLessThan(on - start.scriptT, 1 / rate, label)
                // 20 on, 60 off, 20 on, serviced on the loop's grid.
                let offsets = run.motorChanges.map { Int((($0.t - on) * 1000).rounded()) }
                XCTAssertEqual(offsets, [0, 20, 80, 100], label)
            }
        }
    }

    /// The loop plays the shake effect through the same cap: an alarm (200 ms on, 200 ms off, five
    /// times) with 0.5 s allowed and 0.25 s of rest trips in its third pulse, rests, and goes on.
    func testTheCapTripsInTheMiddleOfAShakeEffectWhileTheLoopRuns() throws {
        let folder = try makeScratchFolder(self)
        var board = try ShakeHarness.board(chip: .mpu6050, script: MotionScript.builtIn(named: "shake")!, folder: folder)
        board.motor?.shakeEffect = .alarm
        board.motor?.maxOnSeconds = 0.5
        board.motor?.minRestSeconds = 0.25
        let run = try ShakeHarness.run(board, seconds: 4, rateHz: 100, motor: true)
        XCTAssertEqual(run.starts.count, 1)
        let on = try XCTUnwrap(run.motorChanges.first).t
        let offsets = run.motorChanges.map { "\(Int((($0.t - on) * 1000).rounded())) \($0.active ? "on" : "off")" }
        // 200 + 200 + 100 ms: off at 900 until 1150, when the alarm is between pulses; its fourth
        // pulse starts a new stretch.
        XCTAssertEqual(offsets, ["0 on", "200 off", "400 on", "600 off", "800 on", "900 off",
                                 "1200 on", "1400 off", "1600 on", "1800 off"])
    }
}
