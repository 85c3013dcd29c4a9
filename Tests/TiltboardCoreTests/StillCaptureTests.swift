import XCTest
import TiltboardCore

final class StillCaptureTests: XCTestCase {
    func testCollectsStatisticsTemperatureAndStopsAfterTheDuration() throws {
        var rng = NoiseSource(seed: 41)
        var capture = StillCapture(settings: .init(duration: 0.5))
        var statuses: [StillCapture.Status] = []
        for i in 0..<100 {
            let s = Sample(t: 10 + Double(i) * 0.01, accel: Vector3(0.01, 0, 0.99) + rng.noise(0.004),
                           gyro: Vector3(2, -1, 0.5) + rng.noise(0.05), tempC: 30 + Double(i % 3))
            statuses.append(capture.feed(s))
            if capture.isDone { break }
        }
        XCTAssertEqual(statuses.count, 51, "0.5 s at 100 Hz after the first sample")
        XCTAssertEqual(statuses.last, .done)
        guard case let .capturing(halfway) = statuses[25] else { return XCTFail("\(statuses[25])") }
        XCTAssertEqual(halfway, 0.5, accuracy: 1e-9)
        XCTAssertEqual(capture.accel.count, 51)
        XCTAssertEqual(capture.accel.mean.z, 0.99, accuracy: 0.002)
        let gyro = try XCTUnwrap(capture.gyro)
        XCTAssertEqual((gyro.mean - Vector3(2, -1, 0.5)).length, 0, accuracy: 0.03)
        // 17 samples each at 30, 31 and 32 °C.
        XCTAssertEqual(try XCTUnwrap(capture.meanTempC), 31, accuracy: 1e-9)
        XCTAssertEqual(capture.feed(Sample(t: 99, accel: .zero)), .done)
        XCTAssertEqual(capture.accel.count, 51, "a finished capture takes no more samples")
    }

    func testSixFacesDrivenThroughStillCaptures() throws {
        let offset = Vector3(-0.02, 0.05, -0.07), scale = Vector3(0.99, 1.03, 0.97)
        var rng = NoiseSource(seed: 42)
        var calibrator = SixFaceCalibrator()
        for (k, face) in BoardFace.allCases.enumerated() {
            var capture = StillCapture()
            var i = 0
            // Half a second of handling, then the board rests on the face.
            while !capture.isDone && i < 1000 {
                let t = Double(i) * 0.01
                let wobble = t < 0.5 ? 0.2 * sin(40 * t) : 0
                let g = rawReading(true: face.ideal + Vector3(wobble, wobble, 0), scale: scale, offset: offset)
                _ = capture.feed(Sample(t: 100 * Double(k) + t, accel: g + rng.noise(0.004)))
                i += 1
            }
            XCTAssertTrue(capture.isDone)
            XCTAssertGreaterThan(capture.restarts, 0, "the handling must have been noticed")
            try calibrator.add(face: face, stats: capture.accel, gyro: capture.gyro)
        }
        let result = try calibrator.fit()
        XCTAssertEqual((result.calibration.offsetG - offset).length, 0, accuracy: 0.001)
        XCTAssertEqual((result.calibration.scale - scale).length, 0, accuracy: 0.002)
    }
}
