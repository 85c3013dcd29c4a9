import XCTest
import TiltboardCore

final class SensorCalibrationTests: XCTestCase {
    func testIdentityLeavesReadingsAlone() {
        let a = Vector3(0.1, -0.2, 0.97)
        XCTAssertEqual(SensorCalibration.identity.apply(accel: a), a)
        XCTAssertEqual(SensorCalibration.identity.apply(gyro: a), a)
    }

    func testAccelIsOffsetRemovedThenDividedByScale() {
        let cal = SensorCalibration(offsetG: Vector3(0.04, -0.03, 0.06), scale: Vector3(1.02, 0.98, 1.01))
        let c = cal.apply(accel: Vector3(1.06, -0.03, 0.06))
        XCTAssertEqual(c.x, 1.0, accuracy: 1e-12)
        XCTAssertEqual(c.y, 0.0, accuracy: 1e-12)
        XCTAssertEqual(c.z, 0.0, accuracy: 1e-12)
        let d = cal.apply(accel: Vector3(0.04, -0.03 - 0.98, 0.06))
        XCTAssertEqual(d.y, -1.0, accuracy: 1e-12)
    }

    func testCrossAxisAppliesAfterScale() {
        let m = Matrix3(rows: Vector3(1, 0.02, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))
        let cal = SensorCalibration(offsetG: Vector3(0.1, 0, 0), scale: Vector3(2, 1, 1), crossAxis: m)
        let c = cal.apply(accel: Vector3(2.1, 1, 0))
        XCTAssertEqual(c.x, 1.02, accuracy: 1e-12)
        XCTAssertEqual(c.y, 1, accuracy: 1e-12)
    }

    func testSampleGetsAccelAndGyroCorrected() {
        let cal = SensorCalibration(offsetG: Vector3(0, 0, 0.1), scale: .one, gyroBiasDps: Vector3(1, -2, 0.5))
        let s = cal.apply(Sample(t: 3, accel: Vector3(0, 0, 1.1), gyro: Vector3(1, -2, 0.5), tempC: 25))
        XCTAssertEqual(s.t, 3)
        XCTAssertEqual(s.accel.z, 1, accuracy: 1e-12)
        XCTAssertEqual(s.gyro, Vector3(0, 0, 0))
        XCTAssertEqual(s.tempC, 25)
        let noGyro = cal.apply(Sample(t: 0, accel: .unitZ))
        XCTAssertNil(noGyro.gyro)
    }

    func testCodableRoundTrip() throws {
        let cal = SensorCalibration(offsetG: Vector3(0.04, -0.03, 0.06), scale: Vector3(1.02, 0.98, 1),
                                    crossAxis: Matrix3(rows: Vector3(1, 0.01, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)),
                                    gyroBiasDps: Vector3(0.5, -1, 2))
        let data = try JSONEncoder().encode(cal)
        XCTAssertEqual(try JSONDecoder().decode(SensorCalibration.self, from: data), cal)
        let json = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(json.contains("\"offsetG\":[0.04,-0.03,0.06]"), json)
    }
}
