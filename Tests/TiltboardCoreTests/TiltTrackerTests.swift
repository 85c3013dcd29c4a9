import XCTest
import TiltboardCore

final class TiltTrackerTests: XCTestCase {
    // Sensor turned 90° on the board: sensor +X points along board +Y, sensor +Y along board −X.
    let mount = Matrix3(rows: Vector3(0, -1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1))
    let cal = SensorCalibration(offsetG: Vector3(0.04, -0.03, 0.06), scale: Vector3(1.02, 0.98, 1.01),
                                gyroBiasDps: Vector3(1, 2, 3))

    /// What the sensor reports for a board-frame gravity reaction and rotation rate.
    func raw(_ t: Double, board g: Vector3, gyro w: Vector3 = .zero) -> Sample {
        let inverse = mount.transposed
        return Sample(t: t, accel: rawReading(true: inverse * g, scale: cal.scale, offset: cal.offsetG),
                      gyro: inverse * w + cal.gyroBiasDps!)
    }

    func testBoardSampleUndoesCalibrationAndMount() {
        var chain = TiltTracker(calibration: cal, mount: mount)
        let s = chain.boardSample(raw(0, board: gravity(pitch: 20, roll: 10), gyro: Vector3(5, -6, 7)))
        XCTAssertEqual((s.accel - gravity(pitch: 20, roll: 10)).length, 0, accuracy: 1e-12)
        XCTAssertEqual((s.gyro! - Vector3(5, -6, 7)).length, 0, accuracy: 1e-12)
        chain.reset()
        XCTAssertNil(chain.lastTime)
    }

    func testChainMatchesTheStagesComposedByHand() {
        let neutral = NeutralPose.capture(meanGravity: gravity(pitch: 25))
        var chain = TiltTracker(calibration: cal, mount: mount, estimator: TiltEstimator(mode: .gyroAided()),
                              neutral: neutral)
        var estimator = TiltEstimator(mode: .gyroAided())
        var controller = TiltController()
        var out = ControlOutput(x: 0, y: 0, vx: 0, vy: 0, headingDeg: 0, atEdgeX: false, atEdgeY: false)
        var expected = out
        for i in 0..<120 {
            let t = 5 + Double(i) * 0.01
            let g = gravity(pitch: 25 + 10 * sin(t), roll: 5 * cos(2 * t))
            out = chain.process(raw(t, board: g, gyro: Vector3(10 * cos(t), 0, 0)))
            let e = estimator.update(accel: g, gyroDps: Vector3(10 * cos(t), 0, 0), dt: i == 0 ? 0 : 0.01)
            expected = controller.update(gravity: neutral.apply(e), dt: i == 0 ? 0 : 0.01)
            XCTAssertEqual(out.x, expected.x, accuracy: 1e-9)
            XCTAssertEqual(out.y, expected.y, accuracy: 1e-9)
        }
        XCTAssertNotEqual(out.y, 0)
    }

    func testAStallDoesNotLurchTheMarker() {
        var chain = TiltTracker(calibration: cal, mount: mount,
                              estimator: TiltEstimator(mode: .accelerometerOnly))
        _ = chain.process(raw(0, board: gravity(pitch: 0, roll: 30)))
        let out = chain.process(raw(10, board: gravity(pitch: 0, roll: 30)))
        var reference = TiltController()
        let expected = reference.update(gravity: gravity(pitch: 0, roll: 30), dt: 0.1)
        XCTAssertEqual(out.x, expected.x, accuracy: 1e-9)
        XCTAssertLessThan(out.x, 1)
    }
}
