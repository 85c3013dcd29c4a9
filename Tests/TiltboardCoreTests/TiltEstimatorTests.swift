import Foundation
import XCTest
@testable import TiltboardCore

final class TiltEstimatorTests: XCTestCase {
    func testFirstSampleInitialisesDirectly() {
        for mode in [TiltEstimator.Mode.accelerometerOnly, .gyroAided()] {
            var e = TiltEstimator(mode: mode)
            XCTAssertFalse(e.isTrusted, "nothing seen yet")
            let g = e.update(accel: gravity(pitch: 30, roll: -12) * 1.03, gyroDps: .zero, dt: 0)
            XCTAssertEqual(angleDeg(g, gravity(pitch: 30, roll: -12)), 0, accuracy: 1e-9)
            XCTAssertEqual(e.angles.pitchDeg, 30, accuracy: 1e-9)
            XCTAssertEqual(e.angles.rollDeg, -12, accuracy: 1e-9)
            XCTAssertEqual(g.length, 1, accuracy: 1e-12)
            XCTAssertTrue(e.isTrusted)
        }
    }

    func testAccelerometerOnlyIsTheMeasuredDirectionWithoutLag() {
        var e = TiltEstimator(mode: .accelerometerOnly)
        for (i, pitch) in [0.0, 30, -45, 10].enumerated() {
            let a = gravity(pitch: pitch, roll: 5) * 1.05
            let g = e.update(accel: a, gyroDps: nil, dt: i == 0 ? 0 : 0.01)
            XCTAssertEqual(angleDeg(g, a), 0, accuracy: 1e-9, "sample \(i) is read at once")
            XCTAssertTrue(e.isTrusted)
        }
    }

    func testAccelerometerOnlyIsUntrustedAwayFromOneG() {
        var e = TiltEstimator(mode: .accelerometerOnly)
        e.update(accel: .unitZ, gyroDps: nil, dt: 0)
        // A push of 0.5 g to the right: the direction leans 27° although the board is level.
        e.update(accel: Vector3(0.5, 0, 1), gyroDps: nil, dt: 0.01)
        XCTAssertTrue(e.isTrusted, "|a| = 1.118 g is within the 0.15 g band")
        e.update(accel: Vector3(0.6, 0, 0.6), gyroDps: nil, dt: 0.01)
        XCTAssertFalse(e.isTrusted, "|a| = 0.85 g: not gravity alone")
        e.update(accel: Vector3(0, 0, 1.2), gyroDps: nil, dt: 0.01)
        XCTAssertFalse(e.isTrusted, "1.2 g")
        e.update(accel: Vector3(0, 0.1, 1), gyroDps: nil, dt: 0.01)
        XCTAssertTrue(e.isTrusted)
    }

    func testGyroAidedIntegratesTheGyroWithTheConventionsSign() {
        // Pitching forward at 90 °/s is a negative rotation about +X (right-hand rule, y → z).
        // A zero acceleration (free fall) is skipped, so the gyro alone acts.
        var e = TiltEstimator(mode: .gyroAided())
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        for _ in 0..<50 { e.update(accel: .zero, gyroDps: Vector3(-90, 0, 0), dt: 0.01) }
        XCTAssertEqual(e.angles.pitchDeg, 0, accuracy: 1e-9, "skipped samples move nothing")
        // With the accelerometer agreeing with the rotation it tracks it.
        var r = TiltEstimator(mode: .gyroAided())
        r.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        for i in 1...100 {
            // A positive rotation about +Y tips the face toward +x: right edge down, roll > 0.
            r.update(accel: gravity(pitch: 0, roll: 0.3 * Double(i)), gyroDps: Vector3(0, 30, 0), dt: 0.01)
        }
        XCTAssertEqual(r.angles.rollDeg, 30, accuracy: 1e-6)
        XCTAssertEqual(r.angles.pitchDeg, 0, accuracy: 1e-6)
    }

    func testGyroAidedFollowsTheGyroThroughAnAccelerationItCannotBe() {
        // Turning at 45 °/s while the accelerometer reads a constant 2 g straight up (a push): the
        // inertial-frame low-pass barely moves in 1 s, so the estimate is about the gyro's 45°
        // (the bias filter takes a little of the disagreement for bias), not the accelerometer's 0°.
        var e = TiltEstimator(mode: .gyroAided())
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        for _ in 0..<100 { e.update(accel: Vector3(0, 0, 2), gyroDps: Vector3(-45, 0, 0), dt: 0.01) }
        XCTAssertEqual(e.angles.pitchDeg, 45, accuracy: 5)
        XCTAssertFalse(e.isResting)
    }

    func testGyroAidedIgnoresAShakeWhileLevel() {
        var e = TiltEstimator(mode: .gyroAided())
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        var worst = 0.0
        for i in 0..<500 {
            // Side-to-side shake of ±1.5 g at 5 Hz while the board stays level.
            let a = Vector3(1.5 * (i % 20 < 10 ? 1 : -1), 0, 1)
            e.update(accel: a, gyroDps: .zero, dt: 0.01)
            worst = max(worst, angleDeg(e.gravity, .unitZ))
            XCTAssertFalse(e.isResting)
        }
        XCTAssertLessThan(worst, 3)
        // The accelerometer alone would read 56°.
        XCTAssertGreaterThan(angleDeg(Vector3(1.5, 0, 1), .unitZ), 50)
    }

    func testAtRestTheEstimateSettlesOnTheAccelerometer() {
        // Started level, then held at a pose the gyro never saw (as after a drift): once the
        // short low-pass has caught up and the board has been steady for 0.7 s, the rest mean
        // takes over, where the 3 s filter alone would still be 10° away.
        var e = TiltEstimator(mode: .gyroAided())
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        let target = gravity(pitch: 20, roll: -5)
        var restedAt: Double?
        for i in 1...500 {
            e.update(accel: target, gyroDps: .zero, dt: 0.01)
            if e.isResting, restedAt == nil { restedAt = Double(i) * 0.01 }
        }
        XCTAssertEqual(restedAt ?? 0, 1.2, accuracy: 0.2)
        XCTAssertLessThan(angleDeg(e.gravity, target), 0.05)
        // A turn ends the rest at once.
        e.update(accel: target, gyroDps: Vector3(30, 0, 0), dt: 0.01)
        XCTAssertFalse(e.isResting)
    }

    func testAResidualBiasIsLearntWhileTheBoardMoves() {
        // Rocking ±20° in roll at 0.5 Hz for a minute with 2 °/s of bias nobody removed: the
        // inclination correction keeps turning against it, and the bias filter takes that for bias.
        var e = TiltEstimator(mode: .gyroAided())
        let bias = Vector3(2, -1.5, 0)
        var worstLate = 0.0
        for i in 0...6000 {
            let t = Double(i) * 0.01
            let roll = 20 * sin(2 * .pi * 0.5 * t)
            let rate = 20 * 2 * .pi * 0.5 * cos(2 * .pi * 0.5 * t)
            e.update(accel: gravity(pitch: 0, roll: roll), gyroDps: Vector3(0, rate, 0) + bias, dt: i == 0 ? 0 : 0.01)
            if t > 50 { worstLate = max(worstLate, angleDeg(e.gravity, gravity(pitch: 0, roll: roll))) }
        }
        XCTAssertEqual(e.residualBiasDps.x, bias.x, accuracy: 0.3)
        XCTAssertEqual(e.residualBiasDps.y, bias.y, accuracy: 0.3)
        // 2.5 °/s left in would keep the 3 s filter several degrees behind.
        XCTAssertLessThan(worstLate, 1)
    }

    func testWhileNoBiasIsKnownAStillBoardsRateIsTakenForBias() {
        // 10 °/s of bias on a still board at 15° pitch: with the bias unmeasured the rest gate
        // admits it, so the estimate does not turn with it.
        var e = TiltEstimator(mode: .gyroAided())
        e.biasKnown = false
        let pose = gravity(pitch: 15)
        var worst = 0.0
        for i in 0...300 {
            e.update(accel: pose, gyroDps: Vector3(10, -4, 6), dt: i == 0 ? 0 : 0.01)
            if i > 150 { worst = max(worst, angleDeg(e.gravity, pose)) }
        }
        XCTAssertTrue(e.isResting)
        XCTAssertLessThan(worst, 0.3)
        // Once a bias is known the same rate is a turn, never rest.
        e.biasKnown = true
        e.update(accel: pose, gyroDps: Vector3(10, -4, 6), dt: 0.01)
        XCTAssertFalse(e.isResting)
    }

    func testGyroAidedIsRateIndependent() {
        func run(rate: Int) -> Vector3 {
            var e = TiltEstimator(mode: .gyroAided())
            e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
            // A back-and-forth push of ±0.5 g at 1 Hz along x while the board pitches at 10 °/s.
            for i in 1...(2 * rate) {
                let t = Double(i) / Double(rate)
                let a = gravity(pitch: 10 * t) + Vector3(0.5 * sin(2 * .pi * t), 0, 0)
                e.update(accel: a, gyroDps: Vector3(-10, 0, 0), dt: 1 / Double(rate))
            }
            return e.gravity
        }
        XCTAssertLessThan(angleDeg(run(rate: 50), run(rate: 500)), 0.05)
        // The push, started abruptly, leaves a transient of about 0.5 g × ω_c/ω in the 3 s
        // low-pass (≈ 2°), where the accelerometer alone is off by up to 27°.
        XCTAssertLessThan(angleDeg(run(rate: 100), gravity(pitch: 20)), 3)
    }

    func testInvalidInputsKeepTheEstimate() {
        for mode in [TiltEstimator.Mode.accelerometerOnly, .gyroAided()] {
            var e = TiltEstimator(mode: mode)
            e.update(accel: .zero, gyroDps: nil, dt: 0.01)
            XCTAssertEqual(e.gravity, .unitZ, "a zero first sample cannot initialise")
            e.update(accel: gravity(pitch: 10), gyroDps: .zero, dt: 0.01)
            let before = e.gravity
            e.update(accel: Vector3(.nan, 0, 1), gyroDps: .zero, dt: 0.01)
            e.update(accel: .zero, gyroDps: .zero, dt: 0.01)
            if mode != .accelerometerOnly { e.update(accel: .unitZ, gyroDps: .zero, dt: -1) }
            XCTAssertEqual(e.gravity, before)
            e.reset()
            XCTAssertEqual(e.update(accel: gravity(pitch: -40), gyroDps: .zero, dt: 0.01).y, gravity(pitch: -40).y, accuracy: 1e-12)
        }
    }
}

final class LowPass2Tests: XCTestCase {
    func testStepResponseFollowsTheTimeConstant() {
        // Second-order Butterworth with f_c = √2/(2πτ): the step response of the continuous
        // filter reaches 1 − e^(−1)·(cos 1 + sin 1) ≈ 0.3096 at t = τ (ω_c τ/√2 = 1).
        var f = LowPass2()
        let dt = 0.0005, tau = 0.5
        f.settle(at: .zero, timeConstant: tau, dt: dt)
        var y = Vector3.zero
        for _ in 0..<Int((tau / dt).rounded()) { y = f.step(Vector3(1, 2, 0), timeConstant: tau, dt: dt) }
        let expected = 1 - exp(-1.0) * (cos(1.0) + sin(1.0))
        XCTAssertEqual(y.x, expected, accuracy: 2e-3)
        XCTAssertEqual(y.y, 2 * expected, accuracy: 4e-3)
        XCTAssertEqual(y.z, 0)
    }

    func testSettledItHoldsAConstantAndFollowsADifferentStep() {
        var f = LowPass2()
        f.settle(at: Vector3(2, -1, 0.5), timeConstant: 3, dt: 0.01)
        for _ in 0..<1000 { XCTAssertEqual((f.step(Vector3(2, -1, 0.5), timeConstant: 3, dt: 0.01) - Vector3(2, -1, 0.5)).length, 0, accuracy: 1e-9) }
        // The same step response at another sample interval (the design follows dt).
        var a = LowPass2(), b = LowPass2()
        a.settle(at: .zero, timeConstant: 1, dt: 0.01)
        b.settle(at: .zero, timeConstant: 1, dt: 0.002)
        for _ in 0..<100 { a.step(.unitZ, timeConstant: 1, dt: 0.01) }
        for _ in 0..<500 { b.step(.unitZ, timeConstant: 1, dt: 0.002) }
        XCTAssertEqual(a.output.z, b.output.z, accuracy: 5e-3)
        XCTAssertEqual(a.output.z, 1 - exp(-1.0) * (cos(1.0) + sin(1.0)), accuracy: 5e-3)
    }
}

final class TiltEstimatorSinCosTests: XCTestCase {
    func testSeriesMatchesLibmAcrossTheSwitchOver() {
        for x in stride(from: -0.1, through: 0.1, by: 0.0007) {
            let (s, c) = TiltEstimator.sinCos(x)
            XCTAssertEqual(s, sin(x), accuracy: 1e-14, "sin \(x)")
            XCTAssertEqual(c, cos(x), accuracy: 1e-14, "cos \(x)")
        }
    }
}
