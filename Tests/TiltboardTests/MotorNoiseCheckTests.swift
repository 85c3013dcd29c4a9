import Foundation
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest
@testable import Tiltboard
@testable import TiltboardCommands

/// The wiring check for motor noise (`Doctor.motorNoise`) on simulated boards whose motor
/// disturbs the bus in one way each (`simulation.motorNoise`): it finds exactly that trouble,
/// passes a clean board, and drives the motor only as its settings say.
final class MotorNoiseCheckTests: XCTestCase {
    private func board(_ noise: String?, chip: String = "mpu6050", motor: Bool = true, maxOn: Double = 2) throws -> BoardDescription {
        let motorSection = motor ? #""motor": {"chip": "simulated", "line": 17, "maxOnSeconds": \#(maxOn)},"# : ""
        let json = #"""
        {"name": "noisy", "sensor": {"chip": "\#(chip)", "bus": "simulated"}, \#(motorSection)
         "simulation": {"script": "flat", "noise": true, "seed": 5\#(noise.map { #", "motorNoise": \#($0)"# } ?? "")}}
        """#
        return try BoardDescription.parse(json: Array(json.utf8), source: "Boards/noisy.json")
    }

    /// Runs the check on `board` on a manual clock: the checks and the motor line's changes.
    private func run(_ board: BoardDescription, settings: MotorNoiseCheck.Settings = MotorNoiseCheck.Settings())
        throws -> (checks: [DoctorCheck], motor: SimulatedGPIOLine?) {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let simulated = try SimulatedBoard(board: board, clock: clock)
        let line = try board.motor.map { try simulated.openMotorLine($0) as! SimulatedGPIOLine }
        let doctor = Doctor(board: board, profilePath: "/nonexistent/profile.json", clock: clock, backend: simulated)
        let check = MotorNoiseCheck(settings: board.motor.map { settings.fitted(to: $0.cap) } ?? settings)
        return (doctor.motorNoise(check, motor: line), line)
    }

    private func failed(_ checks: [DoctorCheck]) -> [String] { checks.filter { $0.status == .fail }.map(\.id) }

    private func report(_ checks: [DoctorCheck]) throws -> MotorNoiseCheck.Report {
        guard case let .motorNoiseMeasured(r)? = checks.first?.finding else { throw XCTSkip("no report in \(checks)") }
        return r
    }

    func testACleanBoardPassesEveryAspect() throws {
        let (checks, motor) = try run(try board(nil))
        XCTAssertEqual(checks.map(\.id), ["motor-noise", "motor-noise-idle", "motor-noise-switching", "motor-noise-running",
                                          "motor-noise-outages", "motor-noise-jumps"])
        XCTAssertEqual(failed(checks), [])
        let r = try report(checks)
        XCTAssertEqual(r.rateHz, 1000, "the MPU-6050's fastest accelerometer rate")
        XCTAssertEqual(r.seconds, 5.5, accuracy: 0.002, "1 s quiet, then 6 × (0.25 s on + 0.5 s off)")
        XCTAssertEqual(r.ticks, 5500, accuracy: 2)
        XCTAssertEqual(r.samples, r.ticks)
        XCTAssertEqual(r.pulses, 6)
        XCTAssertEqual(r.motorOnSeconds, 1.5, accuracy: 0.002)
        XCTAssertEqual([r.busErrors, r.outages, r.jumps], [0, 0, 0])
        // The motor: six pulses, off at the end.
        let changes = try XCTUnwrap(motor).changes
        XCTAssertEqual(changes.map(\.active), Array(repeating: [true, false], count: 6).flatMap { $0 })
        for (i, pair) in stride(from: 0, to: changes.count, by: 2).enumerated() {
            XCTAssertEqual(changes[pair + 1].t - changes[pair].t, 0.25, accuracy: 0.0015, "pulse \(i) lasts 0.25 s")
            if pair + 2 < changes.count {
                XCTAssertEqual(changes[pair + 2].t - changes[pair].t, 0.75, accuracy: 0.0015, "pulses 0.75 s apart")
            }
        }
    }

    func testEachInjectedFaultIsFoundAloneWithItsAspect() throws {
        let cases: [(String, String)] = [
            (#"{"idleErrorRate": 0.01}"#, "motor-noise-idle"),
            (#"{"switchMs": 3}"#, "motor-noise-switching"),
            (#"{"errorRate": 0.05}"#, "motor-noise-running"),
            (#"{"brownOutMs": 50}"#, "motor-noise-outages"),
            (#"{"glitchRate": 0.02}"#, "motor-noise-jumps"),
        ]
        for (noise, aspect) in cases {
            let (checks, _) = try run(try board(noise))
            XCTAssertEqual(failed(checks), [aspect], noise)
            for c in checks where c.status == .fail { XCTAssertEqual(c.cause, .unavailable, noise) }
            XCTAssertEqual(Doctor.firstFailure(checks), .unavailable, noise)
        }
    }

    func testTheCountsMatchTheModel() throws {
        // 3 ms of errors after each of 12 switches, one read a millisecond.
        let switching = try report(try run(try board(#"{"switchMs": 3}"#)).checks)
        XCTAssertEqual(switching.switchingErrors, 36)
        XCTAssertEqual([switching.idleErrors, switching.runningErrors, switching.outages], [0, 0, 0])
        // A brown-out at each switch-on: the chip found reset every time.
        let brownOut = try report(try run(try board(#"{"brownOutMs": 50}"#)).checks)
        XCTAssertEqual(brownOut.outages, 6)
        XCTAssertEqual(brownOut.resets, 6)
        XCTAssertGreaterThanOrEqual(brownOut.longestOutageSeconds, 0.05)
        XCTAssertEqual(brownOut.busErrors, 0, "the errors of an outage are the outage's")
        // A glitch inverts bit 6 of every byte: +1 g on Z reads 0 g, a 1 g jump.
        let glitches = try report(try run(try board(#"{"glitchRate": 0.02}"#)).checks)
        XCTAssertEqual(Double(glitches.jumps), 30, accuracy: 15, "about 2 % of 1500 samples with the motor on")
        XCTAssertEqual(glitches.largestJumpG, 1, accuracy: 0.1)
    }

    func testEveryFindingHasItsOwnFailingCheckOnTheDemoBoard() throws {
        let demo = try BoardDescription.load(path: packageRoot + "/Boards/simulated-motor-noise.json")
        let (checks, _) = try run(demo)
        XCTAssertEqual(failed(checks), ["motor-noise-switching", "motor-noise-outages", "motor-noise-jumps"])
    }

    func testOtherChipsAreCheckedAtTheirOwnFullRate() throws {
        for (chip, rate) in [("adxl345", 1000.0), ("lis3dh", 1000.0)] {
            let (checks, _) = try run(try board(#"{"glitchRate": 0.02}"#, chip: chip))
            XCTAssertEqual(try report(checks).rateHz, rate, accuracy: rate * 0.35, chip)
            XCTAssertEqual(failed(checks), ["motor-noise-jumps"], chip)
        }
    }

    func testPulsesStayWithinTheMotorsCap() throws {
        let short = MotorNoiseCheck.Settings().fitted(to: MotorCapSettings(maxOnSeconds: 0.1, minRestSeconds: 0.8))
        XCTAssertEqual(short.onSeconds, 0.1)
        XCTAssertEqual(short.offSeconds, 0.8)
        let (checks, motor) = try run(try board(nil, maxOn: 0.1))
        XCTAssertEqual(failed(checks), [])
        let changes = try XCTUnwrap(motor).changes
        XCTAssertEqual(changes.count, 12)
        for pair in stride(from: 0, to: changes.count, by: 2) {
            XCTAssertLessThanOrEqual(changes[pair + 1].t - changes[pair].t, 0.1 + 0.0015)
        }
    }

    func testABoardWithoutAMotorHasNothingToCheck() throws {
        let (checks, _) = try run(try board(nil, motor: false))
        XCTAssertEqual(checks, [DoctorCheck(id: "motor-noise", status: .skip, finding: .noMotor)])
        XCTAssertNil(Doctor.firstFailure(checks))
    }

    func testARealBusClockLimitsTheRate() {
        let check = MotorNoiseCheck()
        XCTAssertEqual(check.rateHz(chip: .mpu6050, busClockHz: nil), 1000)
        // 17 bytes of 9 bits plus 3 per 14-byte sample: 156 bits; half of 100 kHz is 320 samples a second.
        XCTAssertEqual(check.rateHz(chip: .mpu6050, busClockHz: 100_000), 320)
        XCTAssertEqual(check.rateHz(chip: .mpu6050, busClockHz: 400_000), 1000)
        // The ADXL345 data sheet advises at most 200 Hz below 400 kHz.
        XCTAssertEqual(check.rateHz(chip: .adxl345, busClockHz: 100_000), 200)
    }

    func testExceedsNeedsMoreThanChanceExplains() {
        XCTAssertFalse(MotorNoiseCheck.Report.exceeds(0, expected: 0))
        XCTAssertTrue(MotorNoiseCheck.Report.exceeds(1, expected: 0))
        XCTAssertFalse(MotorNoiseCheck.Report.exceeds(15, expected: 6))
        XCTAssertTrue(MotorNoiseCheck.Report.exceeds(16, expected: 6))
    }

    func testTheBoardFileKeyIsParsedAndChecked() throws {
        let parsed = try board(#"{"errorRate": 0.1, "switchMs": 4, "brownOutMs": 30, "glitchRate": 0.01, "idleErrorRate": 0.001}"#)
        XCTAssertEqual(parsed.simulation?.motorNoise,
                       SimulatedMotorNoise(errorRate: 0.1, switchSeconds: 0.004, brownOutSeconds: 0.03, glitchRate: 0.01,
                                           idleErrorRate: 0.001))
        let cases: [(String, String, BoardFileError.Problem)] = [
            (#"{"errorRate": 2}"#, "simulation.motorNoise.errorRate", .notAllowed(value: "2", allowed: .chance)),
            (#"{"switchMs": -1}"#, "simulation.motorNoise.switchMs", .notAllowed(value: "-1", allowed: .span(low: 0, high: 1000, unit: .milliseconds))),
            (#"{"brownOut": 1}"#, "simulation.motorNoise.brownOut",
             .unknownKey(section: "simulation.motorNoise", allowed: ["errorRate", "switchMs", "brownOutMs", "glitchRate", "idleErrorRate"])),
            (#""loud""#, "simulation.motorNoise", .notAllowed(value: "\"loud\"", allowed: .object)),
        ]
        for (bad, key, problem) in cases {
            XCTAssertThrowsError(try board(bad), bad) { error in
                XCTAssertEqual((error as? BoardFileError)?.key, key, bad)
                XCTAssertEqual((error as? BoardFileError)?.problem, problem, bad)
            }
        }
    }
}
