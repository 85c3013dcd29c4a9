import XCTest
import TiltboardCore

final class SixFaceCalibrationTests: XCTestCase {
    let offset = Vector3(0.040, -0.030, 0.060)
    let scale = Vector3(1.02, 0.98, 1.02)

    /// ~200 noisy samples (σ = 4 mg) of a still board on `face`, optionally tilted off-axis.
    func capture(_ face: BoardFace, rng: inout NoiseSource, samples: Int = 200, sigma: Double = 0.004,
                 misplaceDeg: Double = 0, gyroBias: Vector3? = nil) -> (RunningStats3, RunningStats3?) {
        var truth = face.ideal
        if misplaceDeg != 0 {
            let axis = face.axis == 0 ? Vector3(0, 1, 0) : Vector3(1, 0, 0)
            truth = Quaternion(axis: axis, angle: misplaceDeg * .pi / 180).rotate(truth)
        }
        var a = RunningStats3()
        var g: RunningStats3? = gyroBias == nil ? nil : RunningStats3()
        for _ in 0..<samples {
            a.add(rawReading(true: truth, scale: scale, offset: offset) + rng.noise(sigma))
            if let b = gyroBias { g?.add(b + rng.noise(0.05)) }
        }
        return (a, g)
    }

    func testClassifyFaces() {
        XCTAssertEqual(BoardFace.classify(meanG: Vector3(0.02, -0.03, 1.01)), .zUp)
        XCTAssertEqual(BoardFace.classify(meanG: Vector3(-0.98, 0.1, 0.05)), .xDown)
        XCTAssertEqual(BoardFace.classify(meanG: Vector3(0.1, 1.02, -0.2)), .yUp)
        XCTAssertEqual(BoardFace.classify(meanG: Vector3(0, 0, -1)), .zDown)
        XCTAssertNil(BoardFace.classify(meanG: gravity(pitch: 45)), "45° between two faces")
        XCTAssertNil(BoardFace.classify(meanG: Vector3(0.4, 0, 0.91)), "another axis above 0.35 g")
        XCTAssertNil(BoardFace.classify(meanG: .zero))
        XCTAssertEqual(BoardFace.xUp.rawValue, "+X")
        XCTAssertEqual(BoardFace.yDown.ideal, Vector3(0, -1, 0))
    }

    func testSixFacesRecoverOffsetsWithinOneMgAndScalesWithinATenthOfAPercent() throws {
        var rng = NoiseSource(seed: 21)
        var cal = SixFaceCalibrator()
        for face in BoardFace.allCases {
            XCTAssertFalse(cal.isComplete)
            let (a, _) = capture(face, rng: &rng)
            try cal.add(face: face, stats: a)
        }
        XCTAssertTrue(cal.isComplete)
        XCTAssertEqual(cal.missingFaces, [])
        let result = try cal.fit()
        let c = result.calibration
        for axis in 0..<3 {
            XCTAssertEqual(c.offsetG[axis], offset[axis], accuracy: 0.001, "offset \(axis)")
            XCTAssertEqual(c.scale[axis], scale[axis], accuracy: 0.001 * scale[axis], "scale \(axis)")
        }
        XCTAssertNil(c.crossAxis)
        XCTAssertNil(c.gyroBiasDps)
        // Only noise is left: σ/√200 per component ≈ 0.28 mg.
        XCTAssertLessThan(result.residualMg, 1)
        XCTAssertGreaterThan(result.residualMg, 0)
        XCTAssertGreaterThanOrEqual(result.maxResidualMg, result.residualMg)
        XCTAssertEqual(result.faceResidualsMg.count, 6)
        // The corrected faces read ±1 g.
        for face in BoardFace.allCases {
            XCTAssertEqual(c.apply(accel: rawReading(true: face.ideal, scale: scale, offset: offset))[face.axis],
                           face.sign, accuracy: 0.001)
        }
    }

    func testFaceOrderAndAutomaticClassificationDoNotMatter() throws {
        var rng = NoiseSource(seed: 22)
        var cal = SixFaceCalibrator()
        for face in BoardFace.allCases.reversed() {
            let (a, _) = capture(face, rng: &rng)
            XCTAssertEqual(try cal.add(stats: a), face)
        }
        XCTAssertEqual(try cal.fit().calibration.offsetG.z, offset.z, accuracy: 0.001)
    }

    func testGyroBiasIsTheMeanOverStillCaptures() throws {
        var rng = NoiseSource(seed: 23)
        var cal = SixFaceCalibrator()
        let bias = Vector3(1.2, -0.8, 0.3)
        for face in BoardFace.allCases {
            let (a, g) = capture(face, rng: &rng, gyroBias: bias)
            try cal.add(face: face, stats: a, gyro: g)
        }
        let b = try XCTUnwrap(try cal.fit().calibration.gyroBiasDps)
        XCTAssertEqual((b - bias).length, 0, accuracy: 0.01)
    }

    func testRepeatedWrongAndAmbiguousFacesAreRejected() throws {
        var rng = NoiseSource(seed: 24)
        var cal = SixFaceCalibrator()
        let (zUp, _) = capture(.zUp, rng: &rng)
        try cal.add(face: .zUp, stats: zUp)
        XCTAssertThrowsError(try cal.add(face: .zUp, stats: zUp)) { error in
            XCTAssertEqual(error as? CalibrationError, .repeatedFace(.zUp))
        }
        let (xUp, _) = capture(.xUp, rng: &rng)
        XCTAssertThrowsError(try cal.add(face: .yDown, stats: xUp)) { error in
            XCTAssertEqual(error as? CalibrationError, .wrongFace(expected: .yDown, measured: .xUp))
        }
        XCTAssertThrowsError(try cal.add(face: .xUp, meanG: gravity(pitch: 0, roll: -45), samples: 100)) { error in
            guard case .ambiguousOrientation = error as? CalibrationError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(cal.missingFaces, [.xUp, .xDown, .yUp, .yDown, .zDown])
        XCTAssertThrowsError(try cal.fit()) { error in
            XCTAssertEqual(error as? CalibrationError, .missingFaces([.xUp, .xDown, .yUp, .yDown, .zDown]))
        }
        cal.remove(face: .zUp)
        XCTAssertNoThrow(try cal.add(face: .zUp, stats: zUp))
    }

    func testMovingCaptureIsRejected() {
        var rng = NoiseSource(seed: 25)
        var moving = RunningStats3()
        for i in 0..<200 {
            moving.add(gravity(pitch: 0, roll: 5 * sin(Double(i) * 0.1)) + rng.noise(0.004))
        }
        var cal = SixFaceCalibrator()
        XCTAssertThrowsError(try cal.add(face: .zUp, stats: moving)) { error in
            guard case .notStill(.accelNoise(axis: 0, _, _)) = error as? CalibrationError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertEqual(cal.missingFaces.count, 6)
    }

    func testMisplacedFaceFailsTheResidualCheckWithFigures() throws {
        var rng = NoiseSource(seed: 26)
        var cal = SixFaceCalibrator()
        for face in BoardFace.allCases {
            let (a, _) = capture(face, rng: &rng, misplaceDeg: face == .yUp ? 6 : 0)
            try cal.add(face: face, stats: a)
        }
        XCTAssertThrowsError(try cal.fit()) { error in
            guard case let .residualTooLarge(rms, worst, limit) = error as? CalibrationError else {
                return XCTFail("\(error)")
            }
            XCTAssertGreaterThan(rms, 15)
            XCTAssertGreaterThan(worst, rms)
            XCTAssertEqual(limit, 15)
        }
        // A looser limit accepts the same data.
        cal.limits.maxResidualMg = 100
        XCTAssertNoThrow(try cal.fit())
    }

    func testImplausibleScaleAndOffsetAreRejected() throws {
        var cal = SixFaceCalibrator()
        // A sensor reading 1.3 g per g on Z (wrong range setting, say).
        for face in BoardFace.allCases {
            var m = face.ideal
            m.z *= 1.3
            try cal.add(face: face, meanG: m, samples: 100)
        }
        XCTAssertThrowsError(try cal.fit()) { error in
            guard case let .scaleOutOfRange(axis, s, _) = error as? CalibrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(axis, 2)
            XCTAssertEqual(s, 1.3, accuracy: 1e-9)
        }
        var shifted = SixFaceCalibrator(limits: .init(maxOffsetG: 0.1))
        for face in BoardFace.allCases {
            try shifted.add(face: face, meanG: face.ideal + Vector3(0.15, 0, 0), samples: 100)
        }
        XCTAssertThrowsError(try shifted.fit()) { error in
            guard case let .offsetOutOfRange(axis, o, limit) = error as? CalibrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(axis, 0)
            XCTAssertEqual(o, 0.15, accuracy: 1e-12)
            XCTAssertEqual(limit, 0.1)
        }
    }

    func testCrossAxisFitRemovesMisalignment() throws {
        // Sensing axes skewed by 2 % (X picks up some Y, Z some X) on top of offset and scale.
        let skew = Matrix3(rows: Vector3(1, 0.02, 0), Vector3(0, 1, 0), Vector3(-0.015, 0, 1))
        var rng = NoiseSource(seed: 27)
        var diag = SixFaceCalibrator(limits: .init(maxResidualMg: 1000))
        var full = SixFaceCalibrator()
        for face in BoardFace.allCases {
            var a = RunningStats3()
            for _ in 0..<200 {
                a.add(rawReading(true: skew * face.ideal, scale: scale, offset: offset) + rng.noise(0.004))
            }
            try diag.add(face: face, stats: a)
            try full.add(face: face, stats: a)
        }
        let plain = try diag.fit()
        let fitted = try full.fit(withCrossAxis: true)
        XCTAssertGreaterThan(plain.residualMg, 10, "a diagonal model cannot explain the skew")
        XCTAssertLessThan(fitted.residualMg, 1)
        let m = try XCTUnwrap(fitted.calibration.crossAxis)
        XCTAssertEqual(m.r0.x, 1, accuracy: 1e-12)
        for face in BoardFace.allCases {
            let corrected = fitted.calibration.apply(accel: rawReading(true: skew * face.ideal, scale: scale, offset: offset))
            XCTAssertEqual((corrected - face.ideal).length, 0, accuracy: 0.001)
        }
        // Directions between the faces are corrected as well, not just the fitted points.
        let between = gravity(pitch: 30, roll: 20)
        let corrected = fitted.calibration.apply(accel: rawReading(true: skew * between, scale: scale, offset: offset))
        XCTAssertEqual((corrected - between).length, 0, accuracy: 0.001)
    }
}
