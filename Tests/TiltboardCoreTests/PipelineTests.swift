import XCTest
import TiltboardCore

/// The per-sample chain on a synthetic MPU-6050-like trace: six-face calibration, neutral capture,
/// gyro-aided tilt estimate, neutral rotation, controller.
final class PipelineTests: XCTestCase {
    let offset = Vector3(0.040, -0.030, 0.060)
    let scale = Vector3(1.02, 0.98, 1.015)
    let gyroBias = Vector3(1.8, -2.4, 0.6)

    func sample(_ t: Double, pose g: Vector3, rng: inout NoiseSource) -> Sample {
        Sample(t: t, accel: rawReading(true: g, scale: scale, offset: offset) + rng.noise(0.004),
               gyro: gyroBias + rng.noise(0.05))
    }

    func testCalibratedNeutralGivesSymmetricControlAroundA25DegreeHold() throws {
        var rng = NoiseSource(seed: 31)
        var calibrator = SixFaceCalibrator()
        for face in BoardFace.allCases {
            var a = RunningStats3(), g = RunningStats3()
            for i in 0..<200 {
                let s = sample(Double(i) * 0.01, pose: face.ideal, rng: &rng)
                a.add(s.accel)
                if let gyro = s.gyro { g.add(gyro) }
            }
            try calibrator.add(face: face, stats: a, gyro: g)
        }
        let fit = try calibrator.fit()
        let cal = fit.calibration
        XCTAssertEqual((try XCTUnwrap(cal.gyroBiasDps) - gyroBias).length, 0, accuracy: 0.01)

        var capture = NeutralCapture()
        var pose: NeutralPose?
        for i in 0..<500 {
            if case let .done(p) = capture.feed(cal.apply(sample(Double(i) * 0.01, pose: gravity(pitch: 25), rng: &rng))) {
                pose = p
                break
            }
        }
        let neutral = try XCTUnwrap(pose)
        XCTAssertEqual(neutral.tiltDeg, 25, accuracy: 0.2)

        func drive(pitch: Double) -> ControlOutput {
            var estimator = TiltEstimator(mode: .gyroAided())
            var controller = TiltController()
            var out = ControlOutput(x: 0, y: 0, vx: 0, vy: 0, headingDeg: 0, atEdgeX: false, atEdgeY: false)
            for i in 0..<100 {
                let s = cal.apply(sample(Double(i) * 0.01, pose: gravity(pitch: pitch), rng: &rng))
                let g = estimator.update(accel: s.accel, gyroDps: s.gyro, dt: 0.01)
                out = controller.update(gravity: neutral.apply(g), dt: i == 0 ? 0 : 0.01)
            }
            return out
        }
        let further = drive(pitch: 35), back = drive(pitch: 15), held = drive(pitch: 25)
        XCTAssertGreaterThan(further.y, 0.5)
        XCTAssertEqual(further.y + back.y, 0, accuracy: 0.02 * further.y)
        // The estimator starts from one noisy sample (4 mg ≈ 0.2°) that decays over τ = 0.5 s;
        // integrated into position that is a few thousandths of the area at most.
        XCTAssertEqual(further.x, 0, accuracy: 0.02)
        XCTAssertEqual(held.y, 0, accuracy: 0.01, "holding the neutral pose keeps the marker centred")
    }
}
