import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardSimulator
import XCTest
import TiltboardCore
import TiltboardDrivers

/// Worst-case simulated parts, the gyro bias in the neutral capture, zeroing, and the
/// hold-still figures on the simulated clock.
final class HoldStillBoardTests: XCTestCase {
    private func board(part: String, chip: String = "mpu6050") throws -> BoardDescription {
        try BoardDescription.parse(json: Array("""
            {"name": "hold", "sensor": {"chip": "\(chip)", "bus": "simulated"},
             "simulation": {"script": "flat", "seed": 4, "part": \(part)}}
            """.utf8), source: "Boards/hold.json")
    }

    func testPartSettingSelectsTheDrawAndChecksItsValues() throws {
        XCTAssertEqual(try board(part: #""typical""#).simulation?.part, .typical)
        XCTAssertEqual(try board(part: #""worst""#).simulation?.part, .worst)
        let explicit = try board(part: #"{"gyroBiasDps": [5, -3, 2], "warmUpC": 4, "warmUpSeconds": 30}"#)
        XCTAssertEqual(explicit.simulation?.part,
                       .explicit(.init(gyroBiasDps: Vector3(5, -3, 2), warmUpC: 4, warmUpSeconds: 30)))
        for (bad, text) in [(#""medium""#, "simulation.part"), (#"{"warmUpC": 99}"#, "simulation.part.warmUpC"),
                            (#"{"gyroBias": [1, 2, 3]}"#, "gyroBias")] {
            XCTAssertThrowsError(try board(part: bad), bad) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains(text) && message.contains("Boards/hold.json"), message)
            }
        }
        let clock = ManualClock()
        let worst = try SimulatedBoard(board: board(part: #""worst""#), clock: clock)
        XCTAssertEqual((worst.device as? SimulatedMPU6050)?.imperfections, .worstCase(chip: .mpu6050, seed: 4))
        let typical = try SimulatedBoard(board: board(part: #""typical""#), clock: clock)
        XCTAssertEqual((typical.device as? SimulatedMPU6050)?.imperfections, .datasheet(chip: .mpu6050, seed: 4))
    }

    func testEachChipsChainAbsorbsAtMostItsOwnDataSheetDrift() throws {
        // Zero-g tempco and operating range by chip, from the data sheets (independent of the
        // descriptions): ADXL345 rev E Table 1, LIS3DH DocID17530 Table 4; the MPU-6050 has a gyro
        // and a thermometer, so nothing is absorbed.
        let expected: [(ChipKind, Vector3, Double)] = [
            (.mpu6050, .zero, 0), (.adxl345, Vector3(0.0008, 0.0008, 0.0045), 125),
            (ChipKind(rawValue: "lis3dh")!, Vector3(0.0005, 0.0005, 0.0005), 125),
        ]
        for (chip, tempco, range) in expected {
            let session = try BoardSession(board: board(part: #""typical""#, chip: chip.rawValue), clock: ManualClock(),
                                           useProfile: false)
            defer { session.close() }
            let settings = session.makeTiltTracker().holdStill.settings
            XCTAssertEqual(settings.driftGPerC, tempco, "\(chip)")
            XCTAssertEqual(settings.driftLimitG, tempco * range, "\(chip)")
        }
    }

    func testTheNeutralCaptureMeasuresTheGyroBiasAndZeroKeepsIt() throws {
        let path = try makeScratchFolder(self) + "/p.json"
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(part: #"{"gyroBiasDps": [5, -3, 2]}"#), clock: clock,
                                       profilePath: path, useProfile: false)
        defer { session.close() }
        let result = try NeutralCalibration().run(on: session)
        let bias = try XCTUnwrap(result.capture.gyroBiasDps)
        for (axis, expected) in [5.0, -3, 2].enumerated() { XCTAssertEqual(bias[axis], expected, accuracy: 0.05) }
        try session.saveNeutral(result.pose, capture: result.capture)
        XCTAssertEqual(try ProfileStore.load(path: path, expectedBoard: nil)?.gyroBiasDps, bias)
        // The session now removes it: a second capture finds (almost) nothing left, and stores the whole bias again.
        let again = try NeutralCalibration().run(on: session)
        for axis in 0..<3 { XCTAssertEqual(try XCTUnwrap(again.capture.gyroBiasDps)[axis], bias[axis], accuracy: 0.05) }
        XCTAssertEqual(session.softwareCalibration.gyroBiasDps, bias, "\(String(describing: session.profile))")
        XCTAssertTrue(session.makeTiltTracker().holdStill.biasKnown)

        try session.zeroNeutral()
        let zeroed = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: nil))
        XCTAssertEqual(zeroed.neutral, .level)
        XCTAssertEqual(zeroed.gyroBiasDps, bias)
    }

    func testZeroWorksWithoutAProfileAndOverACorruptOne() throws {
        let folder = try makeScratchFolder(self)
        let clock = ManualClock()
        let fresh = folder + "/fresh.json"
        let session = try BoardSession(board: board(part: #""typical""#), clock: clock, profilePath: fresh, useProfile: false)
        defer { session.close() }
        try session.zeroNeutral()
        let p = try XCTUnwrap(try ProfileStore.load(path: fresh, expectedBoard: session.profileIdentity))
        XCTAssertEqual(p.neutral, .level)
        XCTAssertEqual(p.sampleCount, 0)
        XCTAssertNil(p.gyroBiasDps)
    }

    /// The figures `bench --hold-still` reports, on one worst-case part of each chip.
    func testHoldStillFiguresOnWorstCaseParts() throws {
        let mpu = try HoldStillBenchmark.run(chip: .mpu6050, seed: 1)
        print("MPU-6050 worst-case part 1: \(mpu)")
        XCTAssertLessThanOrEqual(mpu.stillTiltDeg, 0.3)
        XCTAssertLessThanOrEqual(mpu.warmUpTiltDeg, 0.3)
        XCTAssertLessThanOrEqual(mpu.stepTo80PercentSeconds, 0.3)
        XCTAssertGreaterThan(mpu.stepRiseSeconds, 0)
        XCTAssertEqual(mpu.stepReadsDeg, 10, accuracy: 1.5)
        let adxl = try HoldStillBenchmark.run(chip: .adxl345, seed: 1)
        print("ADXL345 worst-case part 1: \(adxl)")
        XCTAssertLessThanOrEqual(adxl.stillTiltDeg, 0.3)
        XCTAssertLessThanOrEqual(adxl.stepTo80PercentSeconds, 0.3)
        XCTAssertEqual(adxl.stepReadsDeg, 10, accuracy: 3)
        // No gyro and no thermometer: the warm-up's drift (10 °C at 0.8 mg/°C on X/Y and
        // 4.5 mg/°C on Z, about 1° if followed) is absorbed by its rate.
        XCTAssertLessThanOrEqual(adxl.warmUpTiltDeg, 0.3)
        XCTAssertLessThanOrEqual(adxl.warmUpDriftPerMin, 0.02)
        XCTAssertLessThanOrEqual(adxl.stillDriftPerMin, 0.02)
    }
}
