import XCTest
import TiltboardCore

/// Level changes of `player` from `t0` through `until`, found by following `nextChange`
/// the way the engine does; the first entry is the level at `t0`.
func edges(_ player: HapticPlayer, from t0: Double, until: Double) -> [Edge] {
    var out = [Edge(t0, player.level(at: t0))]
    var t = t0
    var steps = 0
    while let next = player.nextChange(after: t), next <= until {
        XCTAssertGreaterThan(next, t, "nextChange must move forward")
        let level = player.level(at: next)
        if level != out[out.count - 1].on { out.append(Edge(next, level)) }
        t = next
        steps += 1
        if steps > 100_000 { XCTFail("runaway"); break }
    }
    return out
}

struct Edge: Equatable, CustomStringConvertible {
    var t: Double
    var on: Bool
    init(_ t: Double, _ on: Bool) { self.t = t; self.on = on }
    var description: String { "(\(t), \(on ? "on" : "off"))" }
}

func assertEdges(_ actual: [Edge], _ expected: [Edge], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(actual.count, expected.count, "\(actual)", file: file, line: line)
    for (a, e) in zip(actual, expected) {
        XCTAssertEqual(a.on, e.on, "\(actual)", file: file, line: line)
        XCTAssertEqual(a.t, e.t, accuracy: 1e-9, "\(actual)", file: file, line: line)
    }
}

final class HapticPlayerTests: XCTestCase {
    func testPulse() {
        var p = HapticPlayer()
        XCTAssertFalse(p.isPlaying)
        p.play(.pulse(ms: 150), at: 1)
        XCTAssertTrue(p.isPlaying)
        XCTAssertEqual(p.endTime ?? 0, 1.15, accuracy: 1e-12)
        assertEdges(edges(p, from: 1, until: 5), [Edge(1, true), Edge(1.15, false)])
        XCTAssertFalse(p.level(at: 0.5))
        XCTAssertNil(p.nextChange(after: 1.15))
        p.advance(to: 1.1)
        XCTAssertTrue(p.isPlaying)
        p.advance(to: 1.15)
        XCTAssertFalse(p.isPlaying)
    }

    func testPresets() {
        var p = HapticPlayer()
        p.play(.tick, at: 0)
        assertEdges(edges(p, from: 0, until: 1), [Edge(0, true), Edge(0.01, false)])
        p.play(.click, at: 0)
        assertEdges(edges(p, from: 0, until: 1), [Edge(0, true), Edge(0.02, false)])
        p.play(.doubleClick, at: 0)
        assertEdges(edges(p, from: 0, until: 1), [Edge(0, true), Edge(0.02, false), Edge(0.08, true), Edge(0.1, false)])
        p.play(.buzz, at: 0)
        assertEdges(edges(p, from: 0, until: 1), [Edge(0, true), Edge(0.4, false)])
        p.play(.alarm, at: 10)
        var expected: [Edge] = []
        for k in 0..<5 {
            expected.append(Edge(10 + 0.4 * Double(k), true))
            expected.append(Edge(10 + 0.4 * Double(k) + 0.2, false))
        }
        assertEdges(edges(p, from: 10, until: 20), expected)
        XCTAssertEqual(p.endTime ?? 0, 12, accuracy: 1e-9)
    }

    func testRepeatUntilCancelled() {
        var p = HapticPlayer()
        p.play(.waveform(HapticWaveform(timingsMs: [100, 50], repeatCount: nil)), at: 0)
        XCTAssertNil(p.endTime)
        XCTAssertTrue(p.level(at: 30.01))    // 200 passes later, still going: 30.01 is 10 ms into a pass
        XCTAssertFalse(p.level(at: 30.12))
        p.cancel(at: 0.33)
        XCTAssertFalse(p.isPlaying)
        XCTAssertFalse(p.level(at: 0.34))
        XCTAssertNil(p.nextChange(after: 0.34))
    }

    func testCancelDuringOnTimeEndsAtOnce() {
        var p = HapticPlayer()
        p.play(.buzz, at: 0)
        let before = p
        p.cancel(at: 0.1)
        assertEdges(edges(before, from: 0, until: 0.1), [Edge(0, true)])
        XCTAssertFalse(p.level(at: 0.1))
        XCTAssertFalse(p.level(at: 0.2))
        XCTAssertFalse(p.isPlaying)
    }

    func testNewEffectPreemptsTheOnePlaying() {
        var p = HapticPlayer()
        p.play(.alarm, at: 0)
        p.play(.click, at: 0.25) // during the alarm's first gap
        assertEdges(edges(p, from: 0.25, until: 5), [Edge(0.25, true), Edge(0.27, false)])
        XCTAssertEqual(p.endTime ?? 0, 0.27, accuracy: 1e-12)
    }

    func testTrailingOnTimeMergesIntoNextPass() {
        var p = HapticPlayer()
        p.play(.waveform(HapticWaveform(timingsMs: [30, 20, 10], repeatCount: 2)), at: 0)
        assertEdges(edges(p, from: 0, until: 1),
                    [Edge(0, true), Edge(0.03, false), Edge(0.05, true), Edge(0.09, false), Edge(0.11, true), Edge(0.12, false)])
    }

    func testPWMDutyFollowsStrength() {
        var p = HapticPlayer(carrierHz: 200)
        p.play(.pulse(ms: 100, strength: 0.25), at: 2)
        let e = edges(p, from: 2, until: 3)
        XCTAssertEqual(e.count, 40)  // 20 carrier periods of 5 ms, each on then off
        for k in 0..<20 {
            assertEdge(e[2 * k], Edge(2 + 0.005 * Double(k), true), accuracy: 1e-9)
            assertEdge(e[2 * k + 1], Edge(2 + 0.005 * Double(k) + 0.00125, false), accuracy: 1e-9)
        }
        // Duty from the levels themselves, sampled every 10 µs.
        var on = 0
        for i in 0..<10_000 where p.level(at: 2 + Double(i) * 1e-5 + 5e-6) { on += 1 }
        XCTAssertEqual(Double(on) / 10_000, 0.25, accuracy: 0.002)
    }

    func testCarrierIsConfigurable() {
        var p = HapticPlayer(carrierHz: 100)
        p.play(.pulse(ms: 20, strength: 0.5), at: 0)
        assertEdges(edges(p, from: 0, until: 1), [Edge(0, true), Edge(0.005, false), Edge(0.01, true), Edge(0.015, false)])
    }

    /// The player plays the whole timeline, however long: the on-time cap is the engine's.
    func testLongEffectsPlayInFull() {
        var p = HapticPlayer()
        p.play(.pulse(ms: 5000), at: 1)
        assertEdges(edges(p, from: 1, until: 10), [Edge(1, true), Edge(6, false)])
        p.advance(to: 6)
        XCTAssertFalse(p.isPlaying)
        // PWM runs to the end too.
        p.play(.pulse(ms: 5000, strength: 0.5), at: 0)
        let e = edges(p, from: 0, until: 10)
        XCTAssertEqual(e.count, 2 * 5 * 200)
        XCTAssertEqual(e.last?.t ?? 0, 4.9975, accuracy: 1e-9)
    }

    func testMergedSegmentsAndEndlessContinuousEffects() {
        var p = HapticPlayer()
        // Zero gap: one 3 s stretch.
        p.play(.waveform(HapticWaveform(timingsMs: [1500, 0, 1500])), at: 0)
        assertEdges(edges(p, from: 0, until: 10), [Edge(0, true), Edge(3, false)])
        // A trailing on-time of 0.6 s merges with the next pass's 1.5 s.
        p.play(.waveform(HapticWaveform(timingsMs: [1500, 100, 600], repeatCount: 2)), at: 0)
        assertEdges(edges(p, from: 0, until: 10), [Edge(0, true), Edge(1.5, false), Edge(1.6, true), Edge(3.7, false),
                                                    Edge(3.8, true), Edge(4.4, false)])
        // Continuous until cancelled: on, and no change ahead.
        p.play(.waveform(HapticWaveform(timingsMs: [100], repeatCount: nil)), at: 0)
        XCTAssertTrue(p.level(at: 1000))
        XCTAssertNil(p.nextChange(after: 5))
        XCTAssertNil(p.endTime)
        p.cancel(at: 7)
        XCTAssertFalse(p.level(at: 7))
        XCTAssertFalse(p.isPlaying)
    }

    func testInvalidEffectStopsPlayback() {
        var p = HapticPlayer()
        p.play(.buzz, at: 0)
        p.play(.pulse(ms: -5), at: 0.1)
        XCTAssertFalse(p.isPlaying)
        XCTAssertFalse(p.level(at: 0.1))
    }
}

func assertEdge(_ a: Edge, _ b: Edge, accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    do {
        XCTAssertEqual(a.on, b.on, "\(a) vs \(b)", file: file, line: line)
        XCTAssertEqual(a.t, b.t, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line)
    }
}
