import XCTest
import TiltboardCore

final class VectorMathTests: XCTestCase {
    func testShortestArcRotationMapsFromOntoTo() {
        let from = Vector3(0.3, -0.2, 0.93).normalized
        let q = Quaternion(from: from, to: .unitZ)
        let r = q.rotate(from)
        XCTAssertEqual(r.x, 0, accuracy: 1e-12)
        XCTAssertEqual(r.y, 0, accuracy: 1e-12)
        XCTAssertEqual(r.z, 1, accuracy: 1e-12)
    }

    func testOppositeVectorsRotateByPi() {
        let q = Quaternion(from: .unitZ, to: -Vector3.unitZ)
        XCTAssertEqual(q.angle, .pi, accuracy: 1e-9)
        XCTAssertEqual(q.rotate(.unitZ).z, -1, accuracy: 1e-12)
    }

    func testQuaternionMatrixAgreesWithRotate() {
        let q = Quaternion(axis: Vector3(1, 2, 3), angle: 0.7)
        let v = Vector3(0.5, -1, 2)
        let a = q.rotate(v), b = q.matrix * v
        XCTAssertEqual(a.x, b.x, accuracy: 1e-12)
        XCTAssertEqual(a.y, b.y, accuracy: 1e-12)
        XCTAssertEqual(a.z, b.z, accuracy: 1e-12)
    }

    func testMatrixInverse() throws {
        let m = Matrix3(rows: Vector3(2, 0.1, 0), Vector3(0, 1.5, 0.2), Vector3(0.3, 0, 1))
        let p = m * (try XCTUnwrap(m.inverse))
        for (row, unit) in [(p.r0, Vector3(1, 0, 0)), (p.r1, Vector3(0, 1, 0)), (p.r2, Vector3(0, 0, 1))] {
            XCTAssertEqual((row - unit).length, 0, accuracy: 1e-12)
        }
        XCTAssertNil(Matrix3(rows: .zero, .unitZ, .unitZ).inverse)
    }

    func testManualClockOnlyMovesForward() {
        let clock = ManualClock(startNanoseconds: 100)
        clock.sleep(untilNanoseconds: 50)
        XCTAssertEqual(clock.nowNanoseconds(), 100)
        clock.sleep(untilNanoseconds: 1_000)
        XCTAssertEqual(clock.nowNanoseconds(), 1_000)
        clock.advance(bySeconds: 0.5)
        XCTAssertEqual(clock.nowNanoseconds(), 500_001_000)
    }
}

final class TiltAnglesTests: XCTestCase {
    func testConventionSigns() {
        // Front edge down: gravity reaction leans to −y.
        XCTAssertLessThan(TiltAngles(pitchDeg: 20, rollDeg: 0).gravity.y, 0)
        // Right edge down: gravity reaction leans to −x.
        XCTAssertLessThan(TiltAngles(pitchDeg: 0, rollDeg: 20).gravity.x, 0)
        XCTAssertEqual(TiltAngles(pitchDeg: 180, rollDeg: 0).gravity.z, -1, accuracy: 1e-12)
    }

    func testRoundTripOverTheSphere() {
        for p in stride(from: -170.0, through: 170, by: 17) {
            for r in stride(from: -85.0, through: 85, by: 17) {
                let back = TiltAngles(gravity: TiltAngles(pitchDeg: p, rollDeg: r).gravity * 0.98)
                XCTAssertEqual(back.pitchDeg, p, accuracy: 1e-9)
                XCTAssertEqual(back.rollDeg, r, accuracy: 1e-9)
            }
        }
    }
}
