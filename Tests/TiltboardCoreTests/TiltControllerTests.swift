import XCTest
import TiltboardCore

final class TiltControllerTests: XCTestCase {
    /// A unit gravity vector whose tilt input is (tx, ty) g.
    func tilt(_ tx: Double, _ ty: Double) -> Vector3 { Vector3(-tx, -ty, (1 - tx * tx - ty * ty).squareRoot()) }

    /// px/frame at 60 Hz for a velocity in area units/s (160 px per unit).
    func pxPerFrame(_ v: Double) -> Double { v * 160 / 60 }

    func testDampedReproducesTheSeedFormulaAt60Hz() {
        var c = TiltController()
        let inputs: [(Double, Double)] = [(0.2, 0), (0.5, -0.1), (0.5, -0.1), (-0.3, 0.4), (0, 0), (0.9, 0.1),
                                          (0.7, -0.7), (0.7, -0.7), (0.7, -0.7), (-0.05, 0.02)]
        var vx = 0.0, vy = 0.0
        for (tx, ty) in inputs {
            vx = vx * 0.4 + tx * 6
            vy = vy * 0.4 + ty * 6
            let out = c.update(gravity: tilt(tx, ty), dt: 1.0 / 60)
            XCTAssertEqual(pxPerFrame(out.vx), vx, accuracy: 1e-9)
            XCTAssertEqual(pxPerFrame(out.vy), vy, accuracy: 1e-9)
        }
    }

    func testDampedVelocityLimitMatchesTheSeedClamp() {
        var c = TiltController(settings: .init(model: .damped(deceleration: 0.4, sensitivity: 6, maxVelocity: 5)))
        var v = 0.0
        for tx in [0.3, 0.8, 0.8, 0.8, 0.8, -0.2, -0.9, -0.9, -0.9] {
            v = Swift.min(5, Swift.max(-5, v * 0.4 + tx * 6))
            let out = c.update(gravity: tilt(tx, 0), dt: 1.0 / 60)
            XCTAssertEqual(pxPerFrame(out.vx), v, accuracy: 1e-9)
        }
        XCTAssertEqual(v, -5, "the sequence must exercise the clamp")
    }

    func testDampedPositionIsTheExactIntegralOfVelocity() {
        var c = TiltController()
        var out = c.update(gravity: tilt(0.2, 0), dt: 0)
        for _ in 0..<30 { out = c.update(gravity: tilt(0.2, 0), dt: 1.0 / 60) }
        // v∞ = 6·0.2/(1 − 0.4) = 2 px/frame = 0.75 units/s; k = −ln 0.4 · 60.
        let k = -log(0.4) * 60, vinf = 0.75, t = 0.5
        XCTAssertEqual(out.x, vinf * t - vinf * (1 - exp(-k * t)) / k, accuracy: 1e-12)
        XCTAssertEqual(out.y, 0)
    }

    func testIntegratingModeMatchesHandComputedMotion() {
        var c = TiltController(settings: .init(model: .integrating(gain: 4, maxSpeed: nil)))
        var out = c.update(gravity: .unitZ, dt: 0)
        for _ in 0..<5 { out = c.update(gravity: tilt(0.5, -0.25), dt: 0.1) }
        // a = (2, −1) units/s²: after 0.5 s v = (1, −0.5), p = a·t²/2 = (0.25, −0.125).
        XCTAssertEqual(out.vx, 1, accuracy: 1e-12)
        XCTAssertEqual(out.vy, -0.5, accuracy: 1e-12)
        XCTAssertEqual(out.x, 0.25, accuracy: 1e-12)
        XCTAssertEqual(out.y, -0.125, accuracy: 1e-12)
    }

    func testIntegratingSpeedLimitIsRateIndependent() {
        for rate in [50.0, 500.0] {
            var c = TiltController(settings: .init(model: .integrating(gain: 4, maxSpeed: 1.5)))
            var out = c.update(gravity: .unitZ, dt: 0)
            for _ in 0..<Int(rate) { out = c.update(gravity: tilt(0, 0.5), dt: 1 / rate) }
            // Speed reaches 1.5 at 0.75 s: p = 2·0.75²/2 + 1.5·0.25 = 0.9375 at 1 s.
            XCTAssertEqual(out.vy, 1.5, accuracy: 1e-12)
            XCTAssertEqual(out.y, 0.9375, accuracy: 1e-9)
        }
    }

    func testEdgeStopZeroesOnlyThatAxis() {
        var c = TiltController(settings: .init(model: .integrating(gain: 4, maxSpeed: nil), boundary: .edgeStop))
        var out = c.update(gravity: .unitZ, dt: 0)
        for _ in 0..<10 { out = c.update(gravity: tilt(0.5, 0.2), dt: 0.1) }
        XCTAssertEqual(out.x, 1, accuracy: 1e-12)
        XCTAssertFalse(out.atEdgeY)
        out = c.update(gravity: tilt(0.5, 0.2), dt: 0.1)
        // x would be 1.21: held at the edge with vx = 0; y keeps moving (0.4·1.1² = 0.484, 0.8·1.1).
        XCTAssertEqual(out.x, 1)
        XCTAssertEqual(out.vx, 0)
        XCTAssertTrue(out.atEdgeX)
        XCTAssertFalse(out.atEdgeY)
        XCTAssertEqual(out.y, 0.484, accuracy: 1e-12)
        XCTAssertEqual(out.vy, 0.88, accuracy: 1e-12)
        // Tilting back leaves the edge at once.
        out = c.update(gravity: tilt(-0.5, 0.2), dt: 0.1)
        XCTAssertEqual(out.x, 0.99, accuracy: 1e-12)
        XCTAssertEqual(out.vx, -0.2, accuracy: 1e-12)
        XCTAssertFalse(out.atEdgeX)
    }

    func testBounceReflectsWithRestitution() {
        var c = TiltController(settings: .init(model: .integrating(gain: 4, maxSpeed: nil),
                                               boundary: .bounce(restitution: 0.5)))
        var out = c.update(gravity: .unitZ, dt: 0)
        for _ in 0..<10 { out = c.update(gravity: tilt(0.45, 0), dt: 0.1) }
        XCTAssertEqual(out.x, 0.9, accuracy: 1e-12)
        XCTAssertFalse(out.atEdgeX)
        out = c.update(gravity: tilt(0.45, 0), dt: 0.1)
        // Unbounded it would be at 0.9·1.1² = 1.089 moving at 1.98: reflected to 1 − 0.089·0.5,
        // moving at −0.99.
        XCTAssertEqual(out.x, 0.9555, accuracy: 1e-12)
        XCTAssertEqual(out.vx, -0.99, accuracy: 1e-12)
        XCTAssertTrue(out.atEdgeX)
        out = c.update(gravity: .unitZ, dt: 0.1)
        XCTAssertEqual(out.x, 0.8565, accuracy: 1e-12)
        XCTAssertFalse(out.atEdgeX)
    }

    func testDampedModeIsRateIndependentIncludingLimitAndEdge() {
        // Tilt changes only on a 20 ms grid (held over each step, sampled at its end).
        func input(_ t: Double) -> Vector3 {
            if t <= 0.3 + 1e-9 { return tilt(0.6, 0.1) }
            if t <= 0.6 + 1e-9 { return tilt(-0.3, 0.8) }
            if t <= 1.2 + 1e-9 { return tilt(0.9, -0.2) }
            return tilt(-0.8, 0)
        }
        func run(rate: Int) -> [ControlOutput] {
            var c = TiltController(settings: .init(model: .damped(deceleration: 0.4, sensitivity: 6, maxVelocity: 4)))
            var out: [ControlOutput] = []
            let every = rate / 50
            for i in 1...(rate * 2) {
                let o = c.update(gravity: input(Double(i) / Double(rate)), dt: 1 / Double(rate))
                if i % every == 0 { out.append(o) }
            }
            return out
        }
        let a = run(rate: 50), b = run(rate: 100), c = run(rate: 500)
        XCTAssertEqual(a.count, 100)
        XCTAssertTrue(a.contains { $0.atEdgeX }, "the trace must reach an edge")
        XCTAssertTrue(a.contains { Swift.abs(pxPerFrame($0.vy)) == 4 }, "the trace must reach the limit")
        for (i, ref) in a.enumerated() {
            for other in [b[i], c[i]] {
                XCTAssertEqual(other.x, ref.x, accuracy: 1e-9, "x at \(Double(i + 1) * 0.02) s")
                XCTAssertEqual(other.y, ref.y, accuracy: 1e-9, "y at \(Double(i + 1) * 0.02) s")
                XCTAssertEqual(other.vx, ref.vx, accuracy: 1e-9)
                XCTAssertEqual(other.vy, ref.vy, accuracy: 1e-9)
                XCTAssertEqual(other.atEdgeX, ref.atEdgeX)
            }
        }
    }

    func testDeadZoneAndResponseCurve() {
        var dz = TiltController(settings: .init(deadZoneDeg: 5))
        XCTAssertEqual(dz.update(gravity: gravity(pitch: 0, roll: 4), dt: 1.0 / 60).vx, 0)
        dz.reset()
        let out = dz.update(gravity: gravity(pitch: 0, roll: 10), dt: 1.0 / 60)
        let s5 = sin(5 * Double.pi / 180), s10 = sin(10 * Double.pi / 180)
        XCTAssertEqual(pxPerFrame(out.vx), 6 * (s10 - s5) / (1 - s5), accuracy: 1e-9)
        // Radial: 4° split over both axes is still inside a 5° zone.
        let diagonal = TiltController(settings: .init(deadZoneDeg: 5)).shapedTilt(gravity: gravity(pitch: 2.9, roll: 2.9))
        XCTAssertEqual(diagonal.x, 0)
        XCTAssertEqual(diagonal.y, 0)

        var curve = TiltController(settings: .init(responseExponent: 2))
        XCTAssertEqual(pxPerFrame(curve.update(gravity: gravity(pitch: 0, roll: -30), dt: 1.0 / 60).vx), -1.5,
                       accuracy: 1e-9)
    }

    func testHeadingPointsDownhill() {
        var c = TiltController(settings: .init(deadZoneDeg: 20))
        XCTAssertEqual(c.update(gravity: gravity(pitch: 0, roll: 10), dt: 0.01).headingDeg, 0, accuracy: 1e-9)
        XCTAssertEqual(c.update(gravity: gravity(pitch: 10, roll: 0), dt: 0.01).headingDeg, 90, accuracy: 1e-9)
        XCTAssertEqual(Swift.abs(c.update(gravity: gravity(pitch: 0, roll: -10), dt: 0.01).headingDeg), 180,
                       accuracy: 1e-9)
        XCTAssertEqual(c.update(gravity: gravity(pitch: -10, roll: 0), dt: 0.01).headingDeg, -90, accuracy: 1e-9)
        XCTAssertEqual(c.update(gravity: tilt(0.1, 0.1), dt: 0.01).headingDeg, 45, accuracy: 1e-9)
    }

    func testNeutralRotationMakesTheResponseSymmetric() {
        let neutral = NeutralPose.capture(meanGravity: gravity(pitch: 25))
        func drive(_ g: Vector3) -> ControlOutput {
            var c = TiltController()
            var out = c.update(gravity: g, dt: 0)
            for _ in 0..<30 { out = c.update(gravity: g, dt: 1.0 / 60) }
            return out
        }
        let further = drive(neutral.apply(gravity(pitch: 35)))
        let back = drive(neutral.apply(gravity(pitch: 15)))
        XCTAssertGreaterThan(further.y, 0, "tilting forward moves +y")
        XCTAssertEqual(further.x, 0, accuracy: 1e-12)
        XCTAssertEqual(Swift.abs(further.y + back.y), 0, accuracy: 0.02 * Swift.abs(further.y))
        XCTAssertEqual(Swift.abs(further.vy + back.vy), 0, accuracy: 0.02 * Swift.abs(further.vy))
        XCTAssertEqual(further.vy, pxToUnits(6 * sin(10 * Double.pi / 180) / 0.6), accuracy: 1e-3)

        // Subtracting the neutral reading instead is lopsided by more than the 2 % allowed.
        let g0 = gravity(pitch: 25)
        let naiveFurther = drive(gravity(pitch: 35) - g0 + .unitZ)
        let naiveBack = drive(gravity(pitch: 15) - g0 + .unitZ)
        XCTAssertGreaterThan(Swift.abs(naiveFurther.vy + naiveBack.vy), 0.02 * Swift.abs(naiveFurther.vy))
    }

    func pxToUnits(_ pxPerFrame: Double) -> Double { pxPerFrame * 60 / 160 }

    func testResetAndSettingsCodable() throws {
        var c = TiltController()
        _ = c.update(gravity: tilt(0.5, 0.5), dt: 0.1)
        c.reset()
        XCTAssertEqual([c.x, c.y, c.vx, c.vy], [0, 0, 0, 0])

        let partial = #"{"model":{"integrating":{"gain":2}},"deadZoneDeg":3}"#
        let s = try JSONDecoder().decode(TiltControllerSettings.self, from: Data(partial.utf8))
        XCTAssertEqual(s.model, .integrating(gain: 2, maxSpeed: nil))
        XCTAssertEqual(s.deadZoneDeg, 3)
        XCTAssertEqual(s.boundary, .edgeStop)
        XCTAssertEqual(s.responseExponent, 1)
        let full = TiltControllerSettings(model: .damped(deceleration: 0.5, sensitivity: 4, maxVelocity: 8),
                                          boundary: .bounce(restitution: 0.3), deadZoneDeg: 2, responseExponent: 1.5)
        XCTAssertEqual(try JSONDecoder().decode(TiltControllerSettings.self, from: JSONEncoder().encode(full)), full)
    }

    func testSettingsValidation() {
        XCTAssertNoThrow(try TiltControllerSettings().validate())
        XCTAssertNoThrow(try TiltControllerSettings(model: .integrating(), boundary: .bounce()).validate())
        let bad = TiltControllerSettings(model: .damped(deceleration: 1.5, sensitivity: 6, maxVelocity: 10))
        XCTAssertThrowsError(try bad.validate()) { error in
            XCTAssertEqual(error as? TiltControllerSettingsError,
                           TiltControllerSettingsError(setting: "deceleration", value: 1.5, allowed: .aboveZeroUpToOne))
        }
        XCTAssertThrowsError(try TiltControllerSettings(boundary: .bounce(restitution: -0.1)).validate())
        XCTAssertThrowsError(try TiltControllerSettings(deadZoneDeg: .nan).validate())
        XCTAssertThrowsError(try TiltControllerSettings(pixelsPerUnit: 0).validate())
    }
}
