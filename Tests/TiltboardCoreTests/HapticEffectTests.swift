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

    func testBadNamesAreRefusedWithTheirProblem() {
        let cases: [(String, HapticEffectError.Problem)] = [
            ("wiggle", .unknownName("wiggle")),
            ("pulse:abc", .notANumber(.pulseLength, text: "abc")),
            ("pulse:0", .notPositive(.pulseLength, text: "0", zeroAllowed: false)),
            ("pulse:99999999", .tooLong(.pulseLength, text: "99999999", limit: .seconds(60))),
            (String(repeating: "w", count: 100), .unknownName(String(repeating: "w", count: 80))),
        ]
        for (name, problem) in cases {
            XCTAssertThrowsError(try HapticEffect.parse(name: name), name) { error in
                XCTAssertEqual((error as? HapticEffectError)?.problem, problem, name)
            }
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
        let cases: [(String, Int?, Double, HapticEffectError.Problem)] = [
            ("100,,50", 1, 1, .notANumber(.offTime(1), text: "")),
            ("0,100", 1, 1, .notPositive(.onTime(1), text: "0", zeroAllowed: false)),
            ("100,x", 1, 1, .notANumber(.offTime(1), text: "x")),
            ("100,-5", 1, 1, .notPositive(.offTime(1), text: "-5", zeroAllowed: true)),
            ("100,5,70000", 1, 1, .tooLong(.onTime(2), text: "70000", limit: .seconds(60))),
            ("", 1, 1, .notANumber(.onTime(1), text: "")),
            ("100", 0, 1, .badRepeatCount(0)),
            ("100", 1, 1.5, .badStrength(1.5)),
            ("100", 1, 0, .badStrength(0)),
        ]
        for (text, count, strength, problem) in cases {
            XCTAssertThrowsError(try HapticEffect.pattern(text, repeat: count, strength: strength), text) { error in
                XCTAssertEqual((error as? HapticEffectError)?.problem, problem, text)
            }
        }
    }

    func testValidity() {
        XCTAssertTrue(HapticEffect.alarm.isValid)
        XCTAssertFalse(HapticEffect.pulse(.zero).isValid)
        XCTAssertFalse(HapticEffect.pulse(ms: 10, strength: 2).isValid)
        XCTAssertFalse(HapticEffect.waveform(HapticWaveform(timingsMs: [0, 100])).isValid)
        XCTAssertFalse(HapticEffect.waveform(HapticWaveform(timingsMs: [])).isValid)
        XCTAssertThrowsError(try HapticEffect.pulse(ms: 10, strength: 2).validate()) { error in
            XCTAssertEqual((error as? HapticEffectError)?.problem, .badStrength(2))
        }
        XCTAssertThrowsError(try HapticEffect.pulse(ms: -1).validate()) { error in
            XCTAssertEqual((error as? HapticEffectError)?.problem, .badPulseLength(-1))
        }
        XCTAssertThrowsError(try HapticEffect.waveform(HapticWaveform(timingsMs: [])).validate()) { error in
            XCTAssertEqual((error as? HapticEffectError)?.problem, .noTimings)
        }
        XCTAssertThrowsError(try HapticEffect.waveform(HapticWaveform(timingsMs: [0, 100])).validate()) { error in
            XCTAssertEqual((error as? HapticEffectError)?.problem, .noOnTime)
        }
        XCTAssertThrowsError(try HapticEffect.waveform(HapticWaveform(timingsMs: [10, .nan])).validate()) { error in
            guard case let .badTiming(number, _)? = (error as? HapticEffectError)?.problem else { return XCTFail("\(error)") }
            XCTAssertEqual(number, 2)
        }
        XCTAssertNoThrow(try HapticEffect.doubleClick.validate())
        XCTAssertEqual(HapticEffect.alarm.waveform.cycleMs, 400)
    }
}
