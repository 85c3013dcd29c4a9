import Foundation
import XCTest
@testable import TiltboardCore

final class TiltEstimatorTests: XCTestCase {
    func testFirstSampleInitialisesDirectly() {
        for mode in [TiltEstimator.Mode.lowPass(), .complementary()] {
            var e = TiltEstimator(mode: mode)
            let g = e.update(accel: gravity(pitch: 30, roll: -12) * 1.03, gyroDps: nil, dt: 0)
            XCTAssertEqual(angleDeg(g, gravity(pitch: 30, roll: -12)), 0, accuracy: 1e-9)
            XCTAssertEqual(e.angles.pitchDeg, 30, accuracy: 1e-9)
            XCTAssertEqual(e.angles.rollDeg, -12, accuracy: 1e-9)
            XCTAssertEqual(g.length, 1, accuracy: 1e-12)
        }
    }

    func testLowPassFollowsItsTimeConstant() {
        var e = TiltEstimator(mode: .lowPass(timeConstant: 0.1))
        e.update(accel: .unitZ, gyroDps: nil, dt: 0)
        let target = Vector3(0, -1, 0)
        var g = Vector3.zero
        for _ in 0..<100 { g = e.update(accel: target, gyroDps: nil, dt: 0.001) }
        // After one τ the filtered vector is unitZ·e⁻¹ + target·(1 − e⁻¹).
        let expected = Vector3(0, -(1 - exp(-1.0)), exp(-1.0)).normalized
        XCTAssertEqual((g - expected).length, 0, accuracy: 1e-9)
    }

    func testLowPassIsRateIndependent() {
        func run(rate: Int) -> [Vector3] {
            var e = TiltEstimator(mode: .lowPass())
            e.update(accel: .unitZ, gyroDps: nil, dt: 0)
            var out: [Vector3] = []
            // Input held over each step (value at its end) and changing on the coarse grid.
            let steps = rate / 10 // 0.1 s
            for i in 1...(rate / 2) {
                let t = Double(i) / Double(rate)
                let g = e.update(accel: gravity(pitch: t <= 0.2 + 1e-9 ? 30 : -10, roll: 15), gyroDps: nil, dt: 1 / Double(rate))
                if i % steps == 0 { out.append(g) }
            }
            return out
        }
        let a = run(rate: 50), b = run(rate: 500)
        XCTAssertEqual(a.count, 5)
        for (x, y) in zip(a, b) { XCTAssertEqual((x - y).length, 0, accuracy: 1e-9) }
    }

    func testComplementaryIntegratesTheGyroWithTheConventionsSign() {
        var e = TiltEstimator(mode: .complementary())
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        // Pitching forward at 90 °/s is a negative rotation about +X (right-hand rule, y → z).
        // The accelerometer reads 2 g (a shake), so it carries no weight and the gyro alone acts.
        for _ in 0..<50 { e.update(accel: Vector3(0, 0, 2), gyroDps: Vector3(-90, 0, 0), dt: 0.01) }
        XCTAssertEqual(e.angles.pitchDeg, 45, accuracy: 1e-9)
        XCTAssertEqual(e.angles.rollDeg, 0, accuracy: 1e-9)
        // A positive rotation about +Y tips the face toward +x: right edge down, roll > 0.
        // With zero acceleration (free fall) the accelerometer again carries no weight.
        var r = TiltEstimator(mode: .complementary())
        r.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        for _ in 0..<100 { r.update(accel: .zero, gyroDps: Vector3(0, 30, 0), dt: 0.01) }
        XCTAssertEqual(r.angles.rollDeg, 30, accuracy: 1e-9)
    }

    func testComplementaryConvergesToTheAccelerometerWithoutRotation() {
        var e = TiltEstimator(mode: .complementary(timeConstant: 0.5))
        e.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        let target = gravity(pitch: 20, roll: -5)
        for _ in 0..<300 { e.update(accel: target, gyroDps: .zero, dt: 0.01) }
        XCTAssertLessThan(angleDeg(e.gravity, target), 0.1)
    }

    func testComplementaryIgnoresAShakeThatLowPassFollows() {
        var comp = TiltEstimator(mode: .complementary())
        var low = TiltEstimator(mode: .lowPass())
        comp.update(accel: .unitZ, gyroDps: .zero, dt: 0)
        low.update(accel: .unitZ, gyroDps: nil, dt: 0)
        for i in 0..<50 {
            // Side-to-side shake of ±1.5 g at 5 Hz while the board stays level.
            let a = Vector3(1.5 * (i % 20 < 10 ? 1 : -1), 0, 1)
            comp.update(accel: a, gyroDps: .zero, dt: 0.01)
            low.update(accel: a, gyroDps: nil, dt: 0.01)
        }
        XCTAssertLessThan(angleDeg(comp.gravity, .unitZ), 0.5)
        XCTAssertGreaterThan(angleDeg(low.gravity, .unitZ), 10)
    }

    func testInvalidInputsKeepTheEstimate() {
        var e = TiltEstimator(mode: .lowPass())
        e.update(accel: .zero, gyroDps: nil, dt: 0.01)
        XCTAssertEqual(e.gravity, .unitZ, "a zero first sample cannot initialise")
        e.update(accel: gravity(pitch: 10), gyroDps: nil, dt: 0.01)
        let before = e.gravity
        e.update(accel: Vector3(.nan, 0, 1), gyroDps: nil, dt: 0.01)
        e.update(accel: .unitZ, gyroDps: nil, dt: -1)
        XCTAssertEqual(e.gravity, before)
        e.reset()
        XCTAssertEqual(e.update(accel: gravity(pitch: -40), gyroDps: nil, dt: 0.01).y, gravity(pitch: -40).y, accuracy: 1e-12)
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
