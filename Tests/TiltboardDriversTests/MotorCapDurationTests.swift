import TiltboardDrivers
import XCTest

final class MotorCapDurationTests: XCTestCase {
    func testTheCapTakesDurationsAndKeepsSeconds() {
        XCTAssertEqual(MotorCapSettings(), MotorCapSettings(maxOnSeconds: 2, minRestSeconds: 0.5), "the board file's defaults")
        var cap = MotorCapSettings(maxOn: .milliseconds(300), minRest: .seconds(1))
        XCTAssertEqual(cap.maxOnSeconds, 0.3, accuracy: 1e-12)
        XCTAssertEqual(cap.minRestSeconds, 1, accuracy: 1e-12)
        cap.minRest = .milliseconds(1500)
        XCTAssertEqual(cap.minRestSeconds, 1.5, accuracy: 1e-12)
        XCTAssertEqual(cap.maxOn, .milliseconds(300))
    }
}
