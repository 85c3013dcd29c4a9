import XCTest
import TiltboardCore

final class GamepadAxesTests: XCTestCase {
    func testSignsFollowTheGamepadConvention() {
        let axes = GamepadAxes()
        // Right edge down → stick right (positive X).
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 0, rollDeg: 12.5)).x, 16384)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 0, rollDeg: -12.5)).x, -16384)
        // Front edge down → stick forward → negative Y, as SDL reports "up".
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 12.5, rollDeg: 0)).y, -16384)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: -12.5, rollDeg: 0)).y, 16384)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 0, rollDeg: 0)).x, 0)
    }

    func testFullScaleClampsAtTheRangeEnds() {
        let axes = GamepadAxes(fullScaleDeg: 20)
        let v = axes.values(TiltAngles(pitchDeg: -40, rollDeg: 20))
        XCTAssertEqual(v.x, 32767)
        XCTAssertEqual(v.y, 32767)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 90, rollDeg: -89)).x, -32767)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 90, rollDeg: -89)).y, -32767)
    }

    func testDeadZoneAndResponseCurve() {
        let axes = GamepadAxes(deadZoneDeg: 5, responseExponent: 2, fullScaleDeg: 25)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 4.9, rollDeg: -5)).x, 0)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 4.9, rollDeg: -5)).y, 0)
        // Halfway between the dead zone and full scale: (0.5)² of full deflection.
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 0, rollDeg: 15)).x, 8192)
        XCTAssertEqual(axes.values(TiltAngles(pitchDeg: 0, rollDeg: -15)).x, -8192)
    }

    func testProblemsNameTheOption() {
        XCTAssertNil(GamepadAxes().problem)
        XCTAssertEqual(GamepadAxes(fullScaleDeg: 0).problem, .fullScale(0))
        XCTAssertEqual(GamepadAxes(deadZoneDeg: 25, fullScaleDeg: 25).problem, .deadZone(25, fullScaleDeg: 25))
        XCTAssertEqual(GamepadAxes(responseExponent: 0).problem, .response(0))
    }

    func testShakeButtonHoldsForTheShakeAndAtLeastAMinimum() {
        var button = ShakeButton()
        XCTAssertFalse(button.update(t: 0.00, shaking: false))
        XCTAssertTrue(button.update(t: 0.01, shaking: true))
        // A 20 ms shake still holds the button 100 ms from its start.
        XCTAssertTrue(button.update(t: 0.03, shaking: false))
        XCTAssertTrue(button.update(t: 0.10, shaking: false))
        XCTAssertFalse(button.update(t: 0.11, shaking: false))
        // A long shake holds it for its whole length.
        XCTAssertTrue(button.update(t: 1.0, shaking: true))
        XCTAssertTrue(button.update(t: 1.5, shaking: true))
        XCTAssertFalse(button.update(t: 1.51, shaking: false))
    }
}
