import TiltboardCore
import XCTest

/// The hold-still stage ahead of the complementary filter, on generated still and moving boards.
final class HoldStillTests: XCTestCase {
    private let rate = 100.0

    /// A chain with the MPU-6050's filter whose calibration measured the bias (as zero) at `calibratedC`.
    private func chain(calibratedC: Double = 25) -> TiltChain {
        TiltChain(calibration: SensorCalibration(offsetG: .zero, scale: .one, gyroBiasDps: .zero),
                  estimator: TiltEstimator(mode: .complementary()),
                  holdStill: HoldStill(biasKnown: true, calibratedTempC: calibratedC))
    }

    /// Angle between the estimate and `truth`, degrees.
    private func error(_ c: TiltChain, _ truth: Vector3) -> Double {
        degrees(acos(Swift.min(1, c.estimator.gravity.dot(truth.normalized))))
    }

    func testTheBiasChangeSinceCalibrationIsLearntWhileStill() {
        // Calibrated at 25 °C, running at 30 °C: the bias may have moved by up to 5 × 20/60 °/s.
        var c = chain(calibratedC: 25)
        let gravity = TiltAngles(pitchDeg: 20, rollDeg: 5).gravity
        let bias = Vector3(0.8, -0.6, 0.5)
        var worst = 0.0
        for i in 0..<3000 {
            _ = c.process(Sample(t: Double(i) / rate, accel: gravity, gyro: bias, tempC: 30))
            if i > 500 { worst = Swift.max(worst, error(c, gravity)) }
        }
        for axis in 0..<3 { XCTAssertEqual(c.holdStill.biasDps[axis], bias[axis], accuracy: 0.01, "axis \(axis)") }
        XCTAssertTrue(c.holdStill.isHolding)
        // Without the learnt bias the filter would sit at about |bias| × τ ≈ 0.6°.
        XCTAssertLessThan(worst, 0.02)
    }

    func testAtTheCalibrationTemperatureTheBiasCannotWander() {
        // Same rate at the calibration's own temperature: not a bias change the data sheet
        // allows, so at most the noise allowance is learnt, and the still board still reads still.
        var c = chain(calibratedC: 30)
        let gravity = TiltAngles(pitchDeg: 20, rollDeg: 5).gravity
        for i in 0..<3000 {
            _ = c.process(Sample(t: Double(i) / rate, accel: gravity, gyro: Vector3(0.8, -0.6, 0.5), tempC: 30))
        }
        XCTAssertLessThanOrEqual(c.holdStill.biasDps.maxAbsComponent, 0.02 + 1e-12)
        XCTAssertLessThan(error(c, gravity), 0.02)
    }

    func testTheAccelerometersThermalDriftIsHeldBackWhileStill() {
        var c = chain()
        let gravity = TiltAngles(pitchDeg: 20, rollDeg: 0).gravity
        // The die warms by 10 °C over the minute; X drifts 0.7 mg/°C (inside the 60/45 mg/°C
        // limit), 7 mg in all: 0.4° if followed.
        var worst = 0.0
        for i in 0..<6000 {
            let t = Double(i) / rate
            let warm = 10 * t / 60
            _ = c.process(Sample(t: t, accel: gravity + Vector3(0.0007 * warm, 0, 0), gyro: .zero, tempC: 25 + warm))
            if t > 3 { worst = Swift.max(worst, error(c, gravity)) }
        }
        XCTAssertLessThan(worst, 0.05)
    }

    func testASlowTiltAtASteadyTemperatureIsFollowed() {
        var c = chain()
        // A slow real tilt of 0.1°/s for 30 s at a steady temperature: slower than the gyro gate.
        var worst = 0.0
        for i in 0..<5000 {
            let t = Double(i) / rate
            let pitch = t < 10 ? 0 : Swift.min(3, 0.1 * (t - 10))
            let rateDps = (t >= 10 && t < 40) ? 0.1 : 0
            let truth = TiltAngles(pitchDeg: pitch, rollDeg: 0).gravity
            _ = c.process(Sample(t: t, accel: truth, gyro: Vector3(-rateDps, 0, 0), tempC: 25))
            worst = Swift.max(worst, error(c, truth))
        }
        // It lags by at most the noise band held back in a spell (2 mg ≈ 0.11°) plus the filter's lag…
        XCTAssertLessThan(worst, 0.2)
        // …and ends within the band of the pose it stopped at.
        XCTAssertLessThan(error(c, TiltAngles(pitchDeg: 3, rollDeg: 0).gravity), 0.12)
        // The slow rotation was not kept as bias: at the calibration temperature it may not move.
        XCTAssertLessThanOrEqual(c.holdStill.biasDps.maxAbsComponent, 0.02 + 1e-12)
    }

    func testARotationIsNeverLearntAsBias() {
        var c = chain()
        for i in 0..<500 {
            let t = Double(i) / rate
            // Settle still, then turn at 20°/s about X for the rest.
            let turning = t >= 2
            let angle = turning ? 20 * (t - 2) : 0
            _ = c.process(Sample(t: t, accel: TiltAngles(pitchDeg: angle, rollDeg: 0).gravity,
                                 gyro: Vector3(turning ? -20 : 0, 0, 0), tempC: 25))
        }
        XCTAssertLessThan(c.holdStill.biasDps.length, 0.01)
        XCTAssertFalse(c.holdStill.isHolding)
    }

    func testWithoutAMeasuredBiasTheFirstStillSpellFindsIt() {
        var c = TiltChain(estimator: TiltEstimator(mode: .complementary()))
        XCTAssertFalse(c.holdStill.biasKnown)
        let bias = Vector3(18, -25, 12)  // data-sheet scale: ±20 °/s plus drift
        let gravity = Vector3.unitZ
        for i in 0..<2000 { _ = c.process(Sample(t: Double(i) / rate, accel: gravity, gyro: bias, tempC: 25)) }
        XCTAssertTrue(c.holdStill.biasKnown)
        for axis in 0..<3 { XCTAssertEqual(c.holdStill.biasDps[axis], bias[axis], accuracy: 0.05, "axis \(axis)") }
        XCTAssertLessThan(error(c, gravity), 0.05)
    }

    func testABoardStillWithinTheNoiseBandOfANewNeutralReadsExactlyNeutral() {
        var c = chain()
        // As the monitor's `c` key does: a new neutral pose set on a running chain.
        let pose = NeutralPose.capture(meanGravity: TiltAngles(pitchDeg: 12, rollDeg: -4).gravity)
        c.neutral = pose
        XCTAssertEqual(c.holdStill.neutralMeanG, pose.meanRawG)
        // Held 1 mg (0.06°) away from the captured mean: noise-sized, so it reads as the pose itself.
        let held = pose.meanRawG + Vector3(0.001, 0, 0)
        for i in 0..<1000 { _ = c.process(Sample(t: Double(i) / rate, accel: held, gyro: .zero, tempC: 25)) }
        XCTAssertTrue(c.holdStill.isHolding)
        XCTAssertLessThan(degrees(acos(Swift.min(1, c.neutral.apply(c.estimator.gravity).z))), 0.005)
        // 5 mg away is a real pose: read as it is.
        var d = chain()
        d.neutral = pose
        let away = pose.meanRawG + Vector3(0.005, 0, 0)
        for i in 0..<1000 { _ = d.process(Sample(t: Double(i) / rate, accel: away, gyro: .zero, tempC: 25)) }
        XCTAssertLessThan(error(d, away), 0.005)
    }
}
