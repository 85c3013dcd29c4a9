import XCTest
import TiltboardCore

final class NeutralPoseTests: XCTestCase {
    func testCaptureRotatesNeutralOntoLevel() {
        let neutral = gravity(pitch: 25, roll: -10) * 0.98
        let pose = NeutralPose.capture(meanGravity: neutral)
        XCTAssertFalse(pose.clamped)
        XCTAssertEqual(pose.meanRawG, neutral)
        let g = pose.apply(neutral.normalized)
        XCTAssertEqual(g.x, 0, accuracy: 1e-12)
        XCTAssertEqual(g.y, 0, accuracy: 1e-12)
        XCTAssertEqual(g.z, 1, accuracy: 1e-12)
        XCTAssertEqual(pose.tiltDeg, angleDeg(neutral, .unitZ), accuracy: 1e-9)
    }

    func testLevelAndFlatCaptureAreIdentity() {
        XCTAssertEqual(NeutralPose.level.apply(Vector3(0.1, 0.2, 0.97)), Vector3(0.1, 0.2, 0.97))
        let pose = NeutralPose.capture(meanGravity: Vector3(0, 0, 1.01))
        XCTAssertEqual(pose.rotation, .identity)
        XCTAssertEqual(pose.tiltDeg, 0)
    }

    func testSteepNeutralIsClampedAboutTheSameAxis() {
        let neutral = gravity(pitch: 50)
        let pose = NeutralPose.capture(meanGravity: neutral, maxTiltDeg: 30)
        XCTAssertTrue(pose.clamped)
        XCTAssertEqual(pose.tiltDeg, 50, accuracy: 1e-9)
        // Only 30° is taken out, about the pitch axis: neutral now reads as 20° forward.
        let angles = TiltAngles(gravity: pose.apply(neutral))
        XCTAssertEqual(angles.pitchDeg, 20, accuracy: 1e-9)
        XCTAssertEqual(angles.rollDeg, 0, accuracy: 1e-9)
        // Upside down has no defined arc axis, but must still clamp rather than invert.
        let flipped = NeutralPose.capture(meanGravity: -Vector3.unitZ)
        XCTAssertTrue(flipped.clamped)
        XCTAssertEqual(angleDeg(flipped.apply(-Vector3.unitZ), -Vector3.unitZ), 30, accuracy: 1e-9)
    }

    func testCodableRoundTrip() throws {
        let pose = NeutralPose.capture(meanGravity: gravity(pitch: 20, roll: 5))
        let back = try JSONDecoder().decode(NeutralPose.self, from: JSONEncoder().encode(pose))
        XCTAssertEqual(back, pose)
    }

    /// 2 s at 100 Hz of a hand-still board at pitch 25°, roll −10°, through a sensor with offsets,
    /// scale errors and 4 mg noise, corrected by the true calibration.
    func testNoisyCaptureRecoversNeutralWithinAFifthOfADegree() throws {
        let cal = SensorCalibration(offsetG: Vector3(0.04, -0.03, 0.06), scale: Vector3(1.02, 0.98, 1.01))
        let truth = gravity(pitch: 25, roll: -10)
        var rng = NoiseSource(seed: 11)
        var capture = NeutralCapture()
        var status = NeutralCapture.Status.capturing(progress: 0)
        var i = 0
        while i < 1000 {
            let raw = rawReading(true: truth, scale: cal.scale, offset: cal.offsetG) + rng.noise(0.004)
            status = capture.feed(cal.apply(Sample(t: Double(i) * 0.01, accel: raw)))
            if case .done = status { break }
            i += 1
        }
        guard case let .done(pose) = status else { return XCTFail("capture did not finish: \(status)") }
        XCTAssertEqual(i, 200, "2 s at 100 Hz")
        XCTAssertEqual(capture.result, pose)
        XCTAssertEqual(capture.progress, 1)
        XCTAssertLessThan(angleDeg(pose.apply(truth), .unitZ), 0.2)
        XCTAssertEqual(pose.tiltDeg, angleDeg(truth, .unitZ), accuracy: 0.2)
        // Finished captures keep reporting the result.
        XCTAssertEqual(capture.feed(Sample(t: 99, accel: .unitZ)), .done(pose))
    }

    func testProgressRunsOverTheDuration() {
        var capture = NeutralCapture(settings: .init(duration: .seconds(1)))
        var last = -1.0
        var rng = NoiseSource(seed: 12)
        for i in 0...50 {
            let status = capture.feed(Sample(t: Double(i) * 0.01, accel: Vector3(0, 0, 1) + rng.noise(0.003)))
            guard case let .capturing(p) = status else { return XCTFail("\(status)") }
            XCTAssertGreaterThanOrEqual(p, last)
            last = p
        }
        XCTAssertEqual(last, 0.5, accuracy: 1e-9)
    }

    func testMovementRestartsWithReasonThenCompletes() throws {
        var capture = NeutralCapture()
        var rng = NoiseSource(seed: 13)
        var restartReason: StillnessFailure?
        var doneAt: Double?
        for i in 0..<1000 {
            let t = Double(i) * 0.01
            // The player shifts the board from 0.5 s to 1.0 s, then holds it at 20° forward.
            let pitch = t < 0.5 ? 0 : (t < 1.0 ? 40 * (t - 0.5) : 20)
            let status = capture.feed(Sample(t: t, accel: gravity(pitch: pitch) + rng.noise(0.004)))
            if case let .restarted(reason) = status, restartReason == nil { restartReason = reason }
            if case let .done(pose) = status {
                doneAt = t
                XCTAssertEqual(pose.tiltDeg, 20, accuracy: 0.2)
                break
            }
        }
        let reason = try XCTUnwrap(restartReason)
        if case .accelNoise(axis: 1, _, _) = reason {} else if case .accelSpan(axis: 1, _, _) = reason {} else {
            XCTFail("unexpected reason \(reason)")
        }
        XCTAssertGreaterThan(capture.restarts, 0)
        let finished = try XCTUnwrap(doneAt)
        // The last restart comes a few samples before the movement ends (the tail of a slow ramp is
        // within the noise), so the capture ends about 2 s after the movement stopped.
        XCTAssertGreaterThanOrEqual(finished, 2.9, "needs about 2 s after the movement stopped")
        XCTAssertLessThan(finished, 3.2)
    }

    func testNeverStillTimesOut() {
        var capture = NeutralCapture(settings: .init(duration: .seconds(2), timeout: .seconds(5)))
        var rng = NoiseSource(seed: 14)
        var final: NeutralCapture.Status?
        for i in 0..<2000 {
            let t = Double(i) * 0.01
            let status = capture.feed(Sample(t: t, accel: gravity(pitch: 8 * sin(2 * .pi * t)) + rng.noise(0.004)))
            if case .timedOut = status { final = status; XCTAssertEqual(t, 5, accuracy: 0.011); break }
        }
        guard case let .timedOut(last)? = final else { return XCTFail("no timeout") }
        XCTAssertNotNil(last)
        XCTAssertNil(capture.result)
        let message = CalibrationError.captureTimedOut(after: .seconds(5), lastFailure: last).description
        XCTAssertTrue(message.contains("within 5 s"), message)
        XCTAssertTrue(message.contains("hold the board still"), message)
    }
}
