import XCTest
import TiltboardCore

final class StillnessTests: XCTestCase {
    func testRunningStatsMatchDirectComputation() {
        let values = [Vector3(1, 2, 3), Vector3(2, 2, 5), Vector3(4, 2, -1), Vector3(-1, 2, 0)]
        var s = RunningStats3()
        for v in values { s.add(v) }
        XCTAssertEqual(s.count, 4)
        XCTAssertEqual(s.mean.x, 1.5, accuracy: 1e-12)
        XCTAssertEqual(s.mean.z, 1.75, accuracy: 1e-12)
        // x: deviations −0.5, 0.5, 2.5, −2.5 → Σ = 13, / 3
        XCTAssertEqual(s.variance.x, 13.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(s.variance.y, 0, accuracy: 1e-12)
        XCTAssertEqual(s.min, Vector3(-1, 2, -1))
        XCTAssertEqual(s.max, Vector3(4, 2, 5))
        XCTAssertEqual(s.span, Vector3(5, 0, 6))
        s.reset()
        XCTAssertEqual(s.count, 0)
        XCTAssertEqual(s.stdDev, .zero)
    }

    func testDataSheetNoisePasses() {
        var rng = NoiseSource(seed: 1)
        var s = RunningStats3(), gyro = RunningStats3()
        for _ in 0..<200 {
            s.add(Vector3(0.02, -0.01, 0.98) + rng.noise(0.0035))
            gyro.add(Vector3(1.5, -0.7, 0.2) + rng.noise(0.05))
        }
        XCTAssertNil(StillnessCriteria().check(accel: s, gyro: gyro))
    }

    func testHandMovingTheBoardIsRejectedWithAxisAndFigure() throws {
        // A hand swaying the board ±4° at 1.5 Hz about the X axis moves Y by about ±70 mg.
        var rng = NoiseSource(seed: 2)
        var s = RunningStats3()
        for i in 0..<200 {
            let pitch = 4 * sin(2 * .pi * 1.5 * Double(i) / 100)
            s.add(gravity(pitch: pitch) + rng.noise(0.0035))
        }
        let failure = try XCTUnwrap(StillnessCriteria().check(accel: s))
        guard case let .accelNoise(axis, sd, limit) = failure else { return XCTFail("\(failure)") }
        XCTAssertEqual(axis, 1)
        XCTAssertEqual(sd, 0.0494, accuracy: 0.004)
        XCTAssertEqual(limit, 0.015)
    }

    func testSingleBumpIsCaughtBySpan() {
        var rng = NoiseSource(seed: 3)
        var s = RunningStats3()
        for i in 0..<400 {
            var v = Vector3(0, 0, 1) + rng.noise(0.0035)
            if i == 200 { v.x += 0.2 }
            s.add(v)
        }
        XCTAssertLessThan(s.stdDev.x, 0.015, "the bump alone must not trip the deviation limit")
        XCTAssertEqual(StillnessCriteria().check(accel: s), .accelSpan(axis: 0, spanG: s.span.x, limitG: 0.08))
    }

    func testGyroRotationAndWrongMagnitudeAndTooFew() {
        var rng = NoiseSource(seed: 4)
        var a = RunningStats3(), g = RunningStats3()
        for i in 0..<100 {
            a.add(Vector3(0, 0, 1) + rng.noise(0.003))
            g.add(Vector3(0, 0, i % 2 == 0 ? 3 : -3))
        }
        XCTAssertEqual(StillnessCriteria().check(accel: a, gyro: g),
                       .gyroNoise(axis: 2, stdDevDps: g.stdDev.z, limitDps: 1.5))

        var heavy = RunningStats3()
        for _ in 0..<20 { heavy.add(Vector3(0, 0, 1.5)) }
        XCTAssertEqual(StillnessCriteria().check(accel: heavy), .gravityMagnitude(measuredG: 1.5, toleranceG: 0.35))

        var few = RunningStats3()
        few.add(.unitZ)
        XCTAssertEqual(StillnessCriteria().check(accel: few), .tooFewSamples(count: 1, needed: 10))
    }
}
