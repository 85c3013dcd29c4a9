import XCTest
import TiltboardCore

final class HapticEffectTests: XCTestCase {
    func testPresetsByName() throws {
        XCTAssertEqual(try HapticEffect.parse(name: "tick"), .pulse(ms: 10))
        XCTAssertEqual(try HapticEffect.parse(name: "click"), .pulse(ms: 20))
        XCTAssertEqual(try HapticEffect.parse(name: "double-click"),
                       .waveform(HapticWaveform(timingsMs: [20, 60, 20], repeatCount: 1)))
        XCTAssertEqual(try HapticEffect.parse(name: "buzz"), .pulse(ms: 400))
        XCTAssertEqual(try HapticEffect.parse(name: " alarm "),
                       .waveform(HapticWaveform(timingsMs: [200, 200], repeatCount: 5)))
        for name in HapticEffect.presetNames { XCTAssertNotNil(HapticEffect.preset(named: name), name) }
    }

    func testPulseByName() throws {
        XCTAssertEqual(try HapticEffect.parse(name: "pulse:150"), .pulse(ms: 150))
        XCTAssertEqual(try HapticEffect.parse(name: "pulse:2.5"), .pulse(ms: 2.5))
    }

    func testBadNamesSayWhatIsAccepted() {
        XCTAssertThrowsError(try HapticEffect.parse(name: "wiggle")) { error in
            XCTAssertEqual("\(error)", "unknown effect 'wiggle': use one of tick, click, double-click, buzz, alarm or pulse:MS (e.g. pulse:150)")
        }
        XCTAssertThrowsError(try HapticEffect.parse(name: "pulse:abc")) { error in
            XCTAssertEqual("\(error)", "pulse length 'abc' is not a number of milliseconds")
        }
        XCTAssertThrowsError(try HapticEffect.parse(name: "pulse:0")) { error in
            XCTAssertEqual("\(error)", "pulse length must be more than 0 milliseconds, not 0")
        }
        XCTAssertThrowsError(try HapticEffect.parse(name: "pulse:99999999")) { error in
            XCTAssertEqual("\(error)", "pulse length of 99999999 ms is too long: at most 60000 ms")
        }
    }

    func testPattern() throws {
        XCTAssertEqual(try HapticEffect.pattern("100, 50 ,100"),
                       .waveform(HapticWaveform(timingsMs: [100, 50, 100], repeatCount: 1, strength: 1)))
        XCTAssertEqual(try HapticEffect.pattern("30,70", repeat: nil, strength: 0.5),
                       .waveform(HapticWaveform(timingsMs: [30, 70], repeatCount: nil, strength: 0.5)))
        XCTAssertEqual(try HapticEffect.pattern("30,0,30", repeat: 3),
                       .waveform(HapticWaveform(timingsMs: [30, 0, 30], repeatCount: 3)))
    }

    func testPatternErrors() {
        let cases: [(String, Int?, Double, String)] = [
            ("100,,50", 1, 1, "off-time #1 '' is not a number of milliseconds"),
            ("0,100", 1, 1, "on-time #1 must be more than 0 milliseconds, not 0"),
            ("100,x", 1, 1, "off-time #1 'x' is not a number of milliseconds"),
            ("100,-5", 1, 1, "off-time #1 must be 0 or more milliseconds, not -5"),
            ("", 1, 1, "on-time #1 '' is not a number of milliseconds"),
            ("100", 0, 1, "repeat count must be at least 1 (or omitted to repeat until cancelled), not 0"),
            ("100", 1, 1.5, "strength must be more than 0 and at most 1, not 1.5"),
            ("100", 1, 0, "strength must be more than 0 and at most 1, not 0.0"),
        ]
        for (text, count, strength, message) in cases {
            XCTAssertThrowsError(try HapticEffect.pattern(text, repeat: count, strength: strength), text) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
    }

    func testValidity() {
        XCTAssertTrue(HapticEffect.alarm.isValid)
        XCTAssertFalse(HapticEffect.pulse(.zero).isValid)
        XCTAssertFalse(HapticEffect.pulse(ms: 10, strength: 2).isValid)
        XCTAssertFalse(HapticEffect.waveform(HapticWaveform(timingsMs: [0, 100])).isValid)
        XCTAssertFalse(HapticEffect.waveform(HapticWaveform(timingsMs: [])).isValid)
        XCTAssertThrowsError(try HapticEffect.pulse(ms: 10, strength: 2).validate())
        XCTAssertNoThrow(try HapticEffect.doubleClick.validate())
        XCTAssertEqual(HapticEffect.alarm.waveform.cycleMs, 400)
    }
}
