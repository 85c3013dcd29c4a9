import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The calibration procedures on simulated boards and a manual clock: instant and repeatable.
final class CalibrationProcedureTests: XCTestCase {
    private let injectedOffsetMg = Vector3(40, -30, 60)
    private let injectedScaleError = Vector3(0.02, -0.02, 0.02)

    private func board(chip: ChipKind = .mpu6050, script: String, noise: Bool = true) -> BoardDescription {
        var board = BoardDescription.builtInSimulated(chip: chip, script: script)
        board.simulation?.noise = noise
        board.simulation?.zeroGOffsetMg = injectedOffsetMg
        board.simulation?.scaleError = injectedScaleError
        return board
    }

    /// A script file holding `segments` from `start`, for poses the built-ins do not have.
    private func scriptFile(start: TiltAngles, _ segments: [MotionScript.Segment]) throws -> String {
        let path = try makeScratchFolder(self) + "/script.json"
        try MotionScript(start: start, segments: segments).jsonData().write(to: URL(fileURLWithPath: path))
        return path
    }

    private func profilePath() throws -> String { try makeScratchFolder(self) + "/profile.json" }

    // MARK: - Six faces

    private func runSixFaces(chip: ChipKind, writeToChip: Bool = false) throws
        -> (BoardSession, SensorCalibrationResult, [CalibrationEvent], String) {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let path = try profilePath()
        let session = try BoardSession(board: board(chip: chip, script: "six-faces"), clock: clock,
                                       profilePath: path, useProfile: false)
        var events: [CalibrationEvent] = []
        let result = try SixFaceProcedure().run(on: session, events: { events.append($0) })
        try session.saveSensorCalibration(result, writeToChip: writeToChip)
        return (session, result, events, path)
    }

    private func assertRecovered(_ c: SensorCalibration, file: StaticString = #filePath, line: UInt = #line) {
        for axis in 0..<3 {
            XCTAssertEqual(c.offsetG[axis] * 1000, injectedOffsetMg[axis], accuracy: 1, "offset axis \(axis)", file: file, line: line)
            XCTAssertEqual(c.scale[axis], 1 + injectedScaleError[axis], accuracy: 0.001, "scale axis \(axis)", file: file, line: line)
        }
    }

    func testSixFacesRecoverOffsetsAndScalesOnTheMPU6050() throws {
        let (session, result, events, path) = try runSixFaces(chip: .mpu6050)
        defer { session.close() }
        let c = result.fit.calibration
        assertRecovered(c)
        print("MPU-6050 six-face fit: offset mg \(c.offsetG * 1000), scale \(c.scale), residual \(result.fit.residualMg) mg, gyro bias \(String(describing: c.gyroBiasDps))")
        // Each face once, in the script's order.
        let captured = events.compactMap { e -> BoardFace? in if case let .faceCaptured(f, _) = e { return f } else { return nil } }
        XCTAssertEqual(captured, [.zUp, .zDown, .xUp, .xDown, .yUp, .yDown])
        XCTAssertFalse(events.contains { if case .faceRejected = $0 { return true } else { return false } })
        XCTAssertLessThan(result.fit.residualMg, 2)
        // The simulated part's seeded gyro bias (data-sheet level, a few °/s) is recovered.
        let truth = SensorImperfections.datasheet(chip: .mpu6050, seed: 1).gyroBiasDps
        let bias = try XCTUnwrap(c.gyroBiasDps)
        for axis in 0..<3 { XCTAssertEqual(bias[axis], truth[axis], accuracy: 0.05, "gyro axis \(axis)") }
        XCTAssertGreaterThan(truth.maxAbsComponent, 0.5)

        let saved = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: session.profileIdentity))
        let s = try XCTUnwrap(saved.sensor)
        XCTAssertEqual(s.offsetG, c.offsetG)
        XCTAssertEqual(s.scale, c.scale)
        XCTAssertEqual(s.gyroBiasDps, c.gyroBiasDps)
        XCTAssertEqual(s.residualMg, result.fit.residualMg)
        XCTAssertFalse(s.writtenToChip)
        XCTAssertEqual(saved.neutral.rotation, .identity)
        XCTAssertEqual(try XCTUnwrap(saved.temperatureC), 25, accuracy: 1)
        XCTAssertGreaterThan(result.capture.sampleCount, 6 * 140)
    }

    func testSixFacesRecoverOffsetsAndScalesOnTheADXL345() throws {
        let (session, result, _, _) = try runSixFaces(chip: .adxl345)
        defer { session.close() }
        assertRecovered(result.fit.calibration)
        XCTAssertNil(result.fit.calibration.gyroBiasDps)
        let c = result.fit.calibration
        print("ADXL345 six-face fit: offset mg \(c.offsetG * 1000), scale \(c.scale), residual \(result.fit.residualMg) mg")
    }

    func testCalibratedSamplesReadOneGAlongEachFace() throws {
        let (session, _, _, _) = try runSixFaces(chip: .mpu6050)
        defer { session.close() }
        // Back to the +Y-down hold the script ends on: corrected reading is (0, −1, 0) g.
        let chain = session.makeTiltTracker()
        var sum = Vector3.zero
        for _ in 0..<100 {
            session.clock.sleep(untilNanoseconds: session.clock.nowNanoseconds() + 10_000_000)
            sum += chain.boardSample(try session.sensor.read(at: session.clock.nowSeconds())).accel
        }
        let mean = sum / 100
        XCTAssertEqual(mean.x, 0, accuracy: 0.002)
        XCTAssertEqual(mean.y, -1, accuracy: 0.002)
        XCTAssertEqual(mean.z, 0, accuracy: 0.002)
    }

    func testAmbiguousAndRepeatedOrientationsAreRejectedAndTheProcedureGoesOn() throws {
        // +Z, then a 45° edge (ambiguous), then +Z again (repeated), then the six faces.
        let flat = TiltAngles(pitchDeg: 0, rollDeg: 0)
        let edge = TiltAngles(pitchDeg: 45, rollDeg: 0)
        var segments: [MotionScript.Segment] = [.hold(flat, seconds: 3), .rotate(to: edge, seconds: 1), .hold(edge, seconds: 3),
                                                .rotate(to: flat, seconds: 1), .hold(flat, seconds: 3)]
        for face in [TiltAngles(pitchDeg: 180, rollDeg: 0), TiltAngles(pitchDeg: 0, rollDeg: -90), TiltAngles(pitchDeg: 0, rollDeg: 90),
                     TiltAngles(pitchDeg: -90, rollDeg: 0), TiltAngles(pitchDeg: 90, rollDeg: 0)] {
            segments += [.rotate(to: face, seconds: 2), .hold(face, seconds: 3)]
        }
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(script: try scriptFile(start: flat, segments)), clock: clock,
                                       profilePath: try profilePath(), useProfile: false)
        defer { session.close() }
        var rejected: [CalibrationError] = []
        var captured: [BoardFace] = []
        let result = try SixFaceProcedure().run(on: session, events: { event in
            if case let .faceRejected(e) = event { rejected.append(e) }
            if case let .faceCaptured(f, _) = event { captured.append(f) }
        })
        XCTAssertEqual(rejected.count, 2)
        guard rejected.count == 2 else { return }
        if case .ambiguousOrientation = rejected[0] {} else { XCTFail("expected ambiguous, got \(rejected[0])") }
        XCTAssertEqual(rejected[1], .repeatedFace(.zUp))
        XCTAssertEqual(captured, [.zUp, .zDown, .xUp, .xDown, .yUp, .yDown])
        assertRecovered(result.fit.calibration)
    }

    func testSixFacesTimeOutWhenNoNewFaceComes() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(script: "flat"), clock: clock, profilePath: try profilePath(), useProfile: false)
        defer { session.close() }
        let start = clock.nowSeconds()
        var captured: [BoardFace] = []
        XCTAssertThrowsError(try SixFaceProcedure(timeout: 10).run(on: session, events: { event in
            if case let .faceCaptured(f, _) = event { captured.append(f) }
        })) { error in
            let timeout = error as? FaceTimeout
            XCTAssertEqual(timeout?.remaining, [.xUp, .xDown, .yUp, .yDown, .zDown])
            XCTAssertEqual(timeout?.seconds, 10)
        }
        XCTAssertEqual(captured, [.zUp])
        // Timed out on simulated time: 10 s after the +Z capture, about 12 s in all.
        XCTAssertEqual(clock.nowSeconds() - start, 12, accuracy: 0.5)
    }

    // MARK: - Offsets in the chip

    func testAChipWithoutOffsetRegistersKeepsTheWholeCorrectionInSoftware() throws {
        // A profile marked as written to the chip (by hand, or from another board) on an LIS3DH:
        // nothing is programmed, the session opens and software removes the whole offset.
        let (first, result, _, path) = try runSixFaces(chip: .lis3dh, writeToChip: true)
        first.close()
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(chip: .lis3dh, script: "flat"), clock: clock, profilePath: path)
        defer { session.close() }
        XCTAssertEqual(session.chipOffsets.accelG, .zero)
        XCTAssertEqual(session.softwareCalibration.offsetG, result.fit.calibration.offsetG)
        let chain = session.makeTiltTracker()
        var sum = Vector3.zero
        for _ in 0..<200 {
            clock.advance(bySeconds: 0.01)
            sum += chain.boardSample(try session.sensor.read(at: clock.nowSeconds())).accel
        }
        let mean = sum / 200
        XCTAssertEqual(mean.x, 0, accuracy: 0.0015)
        XCTAssertEqual(mean.y, 0, accuracy: 0.0015)
        XCTAssertEqual(mean.z, 1, accuracy: 0.0015)
    }

    func testWrittenToChipOffsetsAreProgrammedAgainInTheNextSessionAndNotAppliedTwice() throws {
        for chip in ChipKind.allCases where chip.details.referenceVariant.accelOffsets != nil {
            let (first, result, _, path) = try runSixFaces(chip: chip, writeToChip: true)
            first.close()
            let saved = try XCTUnwrap(try ProfileStore.load(path: path, expectedBoard: first.profileIdentity))
            XCTAssertEqual(saved.sensor?.writtenToChip, true)

            // A new session on a flat board: the chip subtracts the offsets, software only scales.
            let clock = ManualClock(startNanoseconds: 1_000_000_000)
            let session = try BoardSession(board: board(chip: chip, script: "flat"), clock: clock, profilePath: path)
            defer { session.close() }
            // Registers hold the offsets in their steps (the chip's description: 0.98 mg MPU-6050,
            // 15.6 mg ADXL345); software removes only the remainder and applies the scale.
            let step = try XCTUnwrap(chip.details.referenceVariant.accelOffsets).step
            let fitted = result.fit.calibration
            let software = session.softwareCalibration
            for axis in 0..<3 {
                XCTAssertEqual(session.chipOffsets.accelG[axis] + software.offsetG[axis], fitted.offsetG[axis], accuracy: 1e-12)
                XCTAssertLessThanOrEqual(Swift.abs(software.offsetG[axis]), step / 2 + 1e-12, "\(chip) axis \(axis)")
                XCTAssertEqual(session.chipOffsets.accelG[axis] / step, (fitted.offsetG[axis] / step).rounded(), accuracy: 1e-9)
            }
            XCTAssertGreaterThan(session.chipOffsets.accelG.maxAbsComponent, 0.05)
            XCTAssertEqual(software.scale, fitted.scale)
            if chip.details.gyroscope != nil {
                let bias = try XCTUnwrap(fitted.gyroBiasDps)
                let remainder = try XCTUnwrap(software.gyroBiasDps)
                XCTAssertLessThanOrEqual(remainder.maxAbsComponent, 0.5 / 32.8 + 1e-12)
                XCTAssertEqual((session.chipOffsets.gyroDps + remainder - bias).maxAbsComponent, 0, accuracy: 1e-12)
            }
            let chain = session.makeTiltTracker()
            var sum = Vector3.zero, gyro = Vector3.zero
            for _ in 0..<200 {
                clock.advance(bySeconds: 0.01)
                let s = chain.boardSample(try session.sensor.read(at: clock.nowSeconds()))
                sum += s.accel
                gyro += s.gyro ?? .zero
            }
            let mean = sum / 200
            XCTAssertEqual(mean.x, 0, accuracy: 0.0015, "\(chip)")
            XCTAssertEqual(mean.y, 0, accuracy: 0.0015, "\(chip)")
            XCTAssertEqual(mean.z, 1, accuracy: 0.0015, "\(chip)")
            if chip.details.gyroscope != nil { XCTAssertLessThan((gyro / 200).maxAbsComponent, 0.05) }
        }
    }

    func testADXL345OffsetRegistersDoNotAccumulateAcrossSessions() throws {
        let (first, _, _, path) = try runSixFaces(chip: .adxl345, writeToChip: true)
        first.close()
        // Same simulated chip instance is not kept between sessions, so check on one bus: configure
        // twice with the profile applied and compare the offset registers.
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(chip: .adxl345, script: "flat"), clock: clock, profilePath: path)
        defer { session.close() }
        var once = [UInt8](repeating: 0, count: 3)
        try once.withUnsafeMutableBytes { try session.bus.read(address: 0x53, register: 0x1E, into: $0) }
        try session.sensor.configure(session.sensor.configuration)
        var afterConfigure = [UInt8](repeating: 9, count: 3)
        try afterConfigure.withUnsafeMutableBytes { try session.bus.read(address: 0x53, register: 0x1E, into: $0) }
        XCTAssertEqual(afterConfigure, [0, 0, 0])
        // −40 mg, +30 mg, −60 mg in 15.6 mg steps.
        XCTAssertEqual(once.map { Int8(bitPattern: $0) }, [-3, 2, -4])
    }

    // MARK: - Neutral pose

    func testNeutralPoseIsRecoveredWithinAFifthOfADegree() throws {
        let held = TiltAngles(pitchDeg: 25, rollDeg: -12)
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let path = try profilePath()
        // Sensor calibration first, then the neutral capture on the same simulated part.
        let sensorSession = try BoardSession(board: board(script: "six-faces"), clock: clock, profilePath: path, useProfile: false)
        try sensorSession.saveSensorCalibration(try SixFaceProcedure().run(on: sensorSession), writeToChip: false)
        sensorSession.close()

        let session = try BoardSession(board: board(script: try scriptFile(start: held, [])), clock: clock, profilePath: path)
        defer { session.close() }
        let result = try NeutralCalibration().run(on: session)
        let profile = try session.saveNeutral(result.pose, capture: result.capture)
        let expected = NeutralPose.capture(meanGravity: held.gravity)
        let angle = angleBetween(result.pose.rotation, expected.rotation)
        print("neutral pose error: \(angle)° (tilt \(result.pose.tiltDeg)°)")
        XCTAssertLessThan(angle, 0.2)
        // Gravity at the held pose reads level through the saved rotation.
        let level = TiltAngles(gravity: profile.neutral.apply(held.gravity))
        XCTAssertEqual(level.pitchDeg, 0, accuracy: 0.2)
        XCTAssertEqual(level.rollDeg, 0, accuracy: 0.2)
        XCTAssertEqual(result.restarts, 0)
        XCTAssertEqual(profile.neutral.meanRawG, result.pose.meanRawG)
        XCTAssertNotNil(profile.sensor, "the sensor section is kept")
        XCTAssertEqual(profile.sampleCount, result.capture.sampleCount)
        XCTAssertGreaterThanOrEqual(profile.sampleCount, 200)
    }

    func testNeutralBeyondTheMaximumIsClamped() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(script: try scriptFile(start: TiltAngles(pitchDeg: 50, rollDeg: 0), []), noise: false),
                                       clock: clock, profilePath: try profilePath(), useProfile: false)
        defer { session.close() }
        let result = try NeutralCalibration(settings: NeutralCapture.Settings(maxTiltDeg: 30)).run(on: session)
        XCTAssertTrue(result.pose.clamped)
        XCTAssertEqual(result.pose.tiltDeg, 50, accuracy: 3)  // uncalibrated part: offsets and scale skew it
        XCTAssertEqual(angleBetween(result.pose.rotation, .identity), 30, accuracy: 1e-6)
    }

    func testMovingBoardRestartsTheCaptureAndThenTimesOut() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(script: "demo"), clock: clock, profilePath: try profilePath(), useProfile: false)
        defer { session.close() }
        let start = clock.nowSeconds()
        var restarts = 0
        let settings = NeutralCapture.Settings(duration: .seconds(2), timeout: .seconds(8))
        XCTAssertThrowsError(try NeutralCalibration(settings: settings).run(on: session, events: { event in
            if case .restarted = event { restarts += 1 }
        })) { error in
            guard case let .captureTimedOut(timeout, last)? = error as? CalibrationError else {
                return XCTFail("expected a timeout, got \(error)")
            }
            XCTAssertEqual(timeout, .seconds(8))
            XCTAssertNotNil(last)
        }
        XCTAssertGreaterThan(restarts, 3)
        // The timeout counts from the first sample used, after the 0.1 s discarded at the start.
        XCTAssertEqual(clock.nowSeconds() - start, 8.1, accuracy: 0.02)
    }

    func testStopRequestEndsTheCaptureWithoutAResult() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try BoardSession(board: board(script: "flat"), clock: clock, profilePath: try profilePath(), useProfile: false)
        defer { session.close() }
        var samples = 0
        XCTAssertThrowsError(try NeutralCalibration().run(on: session, shouldStop: { samples >= 50 }, events: { _ in samples += 1 })) {
            XCTAssertEqual($0 as? CalibrationStopped, CalibrationStopped())
        }
        XCTAssertEqual(samples, 50)
    }

    // MARK: - Symmetric response about the neutral pose

    func testTenDegreesEitherSideOfA25DegreeNeutralGiveOppositeEqualOutputs() throws {
        let neutral = TiltAngles(pitchDeg: 25, rollDeg: 0)
        let forward = TiltAngles(pitchDeg: 35, rollDeg: 0)
        let back = TiltAngles(pitchDeg: 15, rollDeg: 0)
        let path = try scriptFile(start: neutral, [.hold(neutral, seconds: 4), .rotate(to: forward, seconds: 1), .hold(forward, seconds: 4),
                                                   .rotate(to: back, seconds: 2), .hold(back, seconds: 4)])
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let profile = try profilePath()
        // Calibrate the sensor first on its own session, as a player would.
        let sensorSession = try BoardSession(board: board(script: "six-faces"), clock: clock, profilePath: profile, useProfile: false)
        try sensorSession.saveSensorCalibration(try SixFaceProcedure().run(on: sensorSession), writeToChip: false)
        sensorSession.close()

        let session = try BoardSession(board: board(script: path), clock: clock, profilePath: profile)
        defer { session.close() }
        let t0 = clock.nowNanoseconds()
        let result = try NeutralCalibration().run(on: session)
        try session.saveNeutral(result.pose, capture: result.capture)

        // The mean over the last half second of a 1.2 s run from rest, before the marker reaches
        // an edge: a single sample's noise would tilt the comparison by a tenth of a degree.
        func outputs(from scriptSeconds: Double) throws -> (pitch: Double, vx: Double, vy: Double) {
            clock.set(nanoseconds: t0 + Nanoseconds.span(seconds: scriptSeconds))
            let loop = session.makeLoop(rateHz: 100, haptics: nil)
            nonisolated(unsafe) var outs: [PipelineOutput] = []
            _ = try loop.start(for: .seconds(1.2), observers: [LoopObserver(sample: { out, _ in outs.append(out) })]).wait()
            let tail = outs.suffix(50)
            XCTAssertEqual(tail.count, 50)
            XCTAssertFalse(tail.contains { $0.control.atEdgeY })
            let n = Double(tail.count)
            return (tail.map(\.tilt.pitchDeg).reduce(0, +) / n, tail.map(\.control.vx).reduce(0, +) / n,
                    tail.map(\.control.vy).reduce(0, +) / n)
        }
        let f = try outputs(from: 6)
        let b = try outputs(from: 12)
        print("forward: pitch \(f.pitch)° vy \(f.vy); back: pitch \(b.pitch)° vy \(b.vy); asymmetry \((f.vy + b.vy) / f.vy * 100) %")
        XCTAssertEqual(f.pitch, 10, accuracy: 0.2)
        XCTAssertEqual(b.pitch, -10, accuracy: 0.2)
        XCTAssertGreaterThan(Swift.abs(f.vy), 0.1)
        XCTAssertEqual(f.vy, -b.vy, accuracy: 0.02 * Swift.abs(f.vy))
        XCTAssertEqual(f.vx, 0, accuracy: 0.02 * Swift.abs(f.vy))
        XCTAssertEqual(b.vx, 0, accuracy: 0.02 * Swift.abs(f.vy))
    }
}

/// The rotation angle between two unit quaternions, in degrees.
private func angleBetween(_ a: Quaternion, _ b: Quaternion) -> Double {
    let dot = Swift.min(1, Swift.abs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z))
    return 2 * acos(dot) * 180 / .pi
}
