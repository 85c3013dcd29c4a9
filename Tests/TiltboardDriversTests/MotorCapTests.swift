import XCTest
import Synchronization
@testable import TiltboardDrivers
import TiltboardCore

private let ms: UInt64 = 1_000_000

/// The on-time cap in the haptic engine, stepped on a `ManualClock`: on-time summed over gaps
/// shorter than the rest (PWM by its duty), a rest after each trip, the effect resuming after it.
final class MotorCapTests: XCTestCase {
    /// Where the tests' time starts; edges are reported in milliseconds after it.
    private let t0 = 1_000 * ms
    private var clock: ManualClock!
    private var line: RecordingLine!
    private var engine: HapticEngine!
    /// How many times the engine called back on a trip.
    private var callbacks = Counter()

    private func makeEngine(_ cap: MotorCapSettings = MotorCapSettings()) {
        clock = ManualClock(startNanoseconds: t0)
        line = RecordingLine(clock: clock)
        let counter = Counter()
        callbacks = counter
        engine = HapticEngine(line: line, clock: clock, cap: cap, startsThread: false,
                              capTripped: { counter.value.add(1, ordering: .relaxed) })
    }

    /// Services the engine at every change it asks for, up to `end` ms after `t0`.
    private func run(untilMs end: Double) {
        let stop = t0 + UInt64(end * 1e6)
        var steps = 0
        while let next = engine.service(now: clock.nowNanoseconds()), next <= stop {
            guard next > clock.nowNanoseconds(), steps < 100_000 else { return XCTFail("the engine does not move on") }
            clock.set(nanoseconds: next)
            steps += 1
        }
        clock.set(nanoseconds: stop)
        engine.service(now: stop)
    }

    /// Level changes in ms after `t0` (the line starts off), merged where a level repeats.
    private var edges: [(ms: Double, on: Bool)] {
        var out: [(ms: Double, on: Bool)] = []
        for r in line.records where (out.last?.on ?? false) != r.active {
            out.append((Double(r.t &- t0) / 1e6, r.active))
        }
        return out
    }

    private func assertEdges(_ expected: [(Double, Bool)], file: StaticString = #filePath, line l: UInt = #line) {
        let actual = edges
        XCTAssertEqual(actual.count, expected.count, "\(actual)", file: file, line: l)
        for (a, e) in zip(actual, expected) {
            XCTAssertEqual(a.ms, e.0, accuracy: 1e-5, "\(actual)", file: file, line: l)
            XCTAssertEqual(a.on, e.1, "\(actual)", file: file, line: l)
        }
    }

    private func assertTrips(_ n: Int, file: StaticString = #filePath, line l: UInt = #line) {
        XCTAssertEqual(engine.capTrips, n, "\(edges)", file: file, line: l)
        XCTAssertEqual(callbacks.value.load(ordering: .relaxed), n, "one callback per trip", file: file, line: l)
    }

    /// The on-time of each stretch (on-time between gaps of at least `minRestMs`), in ms.
    private func stretches(minRestMs: Double) -> [Double] {
        var sums: [Double] = []
        var onAt: Double?
        var offAt: Double?
        for e in edges {
            if e.on {
                if sums.isEmpty || (offAt.map { e.ms - $0 >= minRestMs - 1e-6 } ?? true) { sums.append(0) }
                onAt = e.ms
            } else if let on = onAt {
                sums[sums.count - 1] += e.ms - on
                onAt = nil
                offAt = e.ms
            }
        }
        return sums
    }

    /// 1.5 s on with 1 ms gaps, four times: 6 s of asking, never more than 2 s without a 0.5 s rest.
    func testOneMillisecondGapsDoNotResetTheCount() throws {
        makeEngine()
        engine.play(try HapticEffect.pattern("1500,1", repeat: 4))
        run(untilMs: 8_000)
        // 1500 + 500 of the second on-time: trip at 2001, rest to 2501, on again to the end of that
        // on-time (3001); 500 + 1500 more fills the new stretch exactly as the fourth on-time is
        // asked for at 4503: kept off until 4502 + 500, then on to the end at 6003.
        assertEdges([(0, true), (1500, false), (1501, true), (2001, false), (2501, true), (3001, false),
                     (3002, true), (4502, false), (5002, true), (6003, false)])
        XCTAssertEqual(stretches(minRestMs: 500), [2000, 2000, 1001], accuracy: 1e-5)
        assertTrips(2)
        XCTAssertFalse(engine.isActive)
    }

    /// 300 ms on, 40 ms off until interrupted (88 % duty): 2 s of on-time, then a 0.5 s rest, over and over.
    func testFortyMillisecondGapsAreNoRest() throws {
        makeEngine()
        engine.play(try HapticEffect.pattern("300,40", repeat: nil))
        run(untilMs: 20_000)
        // Six whole on-times (1800 ms) and 200 ms of the seventh, which starts at 2040.
        XCTAssertEqual(Array(edges.prefix(15).map(\.ms).suffix(3)), [2040, 2240, 2740], accuracy: 1e-5)
        for sum in stretches(minRestMs: 500) { XCTAssertLessThanOrEqual(sum, 2000 + 1e-3) }
        XCTAssertGreaterThanOrEqual(engine.capTrips, 7)
        assertTrips(engine.capTrips)
        // At most 2 s on in every 2.5 s.
        XCTAssertLessThanOrEqual(onTime(untilMs: 20_000), 20_000 * 0.8 + 2_000 * 0.2)
        XCTAssertTrue(engine.isActive, "the pattern still plays")
    }

    /// `pulse:1900` three times with the 100 ms gap `haptics --repeat` puts between them.
    func testRepeatedPulsesRestAndResume() throws {
        makeEngine()
        engine.play(.waveform(HapticWaveform(timingsMs: [1900, 100], repeatCount: 3)))
        run(untilMs: 8_000)
        assertEdges([(0, true), (1900, false), (2000, true), (2100, false), (2600, true), (3900, false),
                     (4000, true), (4700, false), (5200, true), (5900, false)])
        assertTrips(2)
    }

    /// A game re-sending a 1.5 s rumble every second: each new effect continues the stretch.
    func testEffectsPlayedBackToBackShareOneStretch() {
        makeEngine()
        for k in 0..<6 {
            run(untilMs: Double(k) * 1000)
            engine.play(.pulse(ms: 1500))
        }
        run(untilMs: 8_000)
        // On from 0, each re-send continuing the stretch: off at 2000 for the rest, on again at
        // 2500 for the rumble sent at 2000 and its successors until 4500, rest, the last ends at 6500.
        assertEdges([(0, true), (2000, false), (2500, true), (4500, false), (5000, true), (6500, false)])
        assertTrips(2)
    }

    /// Short effects back to back: a 400 ms buzz every 450 ms fills the stretch after five; the
    /// sixth is not felt, the seventh starts after the rest.
    func testShortEffectsBackToBackTripTheCap() {
        makeEngine()
        for k in 0..<7 {
            run(untilMs: Double(k) * 450)
            engine.play(.buzz)
        }
        run(untilMs: 4_000)
        var expected: [(Double, Bool)] = []
        for k in 0..<5 { expected += [(Double(k) * 450, true), (Double(k) * 450 + 400, false)] }
        // The seventh, asked for at 2700 = the end of the rest (2200 + 500).
        expected += [(2700, true), (3100, false)]
        assertEdges(expected)
        assertTrips(1)
    }

    /// At half strength the PWM on-time counts half: 2 s of on-time takes 4 s of buzzing.
    func testPWMOnTimeCountsByItsDuty() {
        makeEngine()
        engine.play(.pulse(ms: 5000, strength: 0.5))
        run(untilMs: 6_000)
        let e = edges
        guard let i = e.indices.dropFirst().first(where: { e[$0].ms - e[$0 - 1].ms > 100 }) else {
            return XCTFail("no rest in \(e.count) edges")
        }
        // The last 2.5 ms pulse before the rest ends at 3997.5 ms: 800 pulses, 2000 ms on.
        XCTAssertEqual(e[i - 1].ms, 3997.5, accuracy: 1e-5)
        XCTAssertFalse(e[i - 1].on)
        // Off for the rest, then on at the next carrier period.
        XCTAssertEqual(e[i].ms, 4500, accuracy: 1e-5)
        XCTAssertEqual(e.last?.ms ?? 0, 4997.5, accuracy: 1e-5)
        XCTAssertEqual(stretches(minRestMs: 500), [2000, 250], accuracy: 1e-4)
        assertTrips(1)
    }

    /// A gap just under the rest continues the stretch; just over, it starts a new one.
    func testARestJustUnderAndJustOverMinRest() throws {
        makeEngine()
        engine.play(try HapticEffect.pattern("1500,499,1500"))
        run(untilMs: 5_000)
        assertEdges([(0, true), (1500, false), (1999, true), (2499, false), (2999, true), (3499, false)])
        assertTrips(1)

        makeEngine()
        engine.play(try HapticEffect.pattern("1500,501,1500"))
        run(untilMs: 5_000)
        assertEdges([(0, true), (1500, false), (2001, true), (3501, false)])
        assertTrips(0)
    }

    /// The board's values, not the defaults: 0.3 s on, 1 s rest.
    func testTheCapFollowsItsSettings() {
        makeEngine(MotorCapSettings(maxOnSeconds: 0.3, minRestSeconds: 1))
        engine.play(.pulse(ms: 3000))
        run(untilMs: 4_000)
        assertEdges([(0, true), (300, false), (1300, true), (1600, false), (2600, true), (2900, false)])
        assertTrips(3)
    }

    /// A stretch that fills exactly as its effect ends trips nothing; cancelling during a rest
    /// leaves the motor off and the engine idle.
    func testAFullStretchThatEndsByItselfIsNoTrip() {
        makeEngine()
        engine.play(.pulse(ms: 2000))
        run(untilMs: 3_000)
        assertEdges([(0, true), (2000, false)])
        assertTrips(0)

        engine.play(.pulse(ms: 3000))
        run(untilMs: 5_400)
        engine.cancel()
        run(untilMs: 7_000)
        assertEdges([(0, true), (2000, false), (3000, true), (5000, false)])
        assertTrips(1)
        XCTAssertFalse(engine.isActive)
    }

    /// Time stopped (Ctrl-Z) is time off: a stop of a full rest ends the stretch, a shorter one does not.
    func testTimeSuspendedCountsAsOffTime() {
        let cases: [(resumeMs: Double, edges: [(Double, Bool)], trips: Int)] = [
            (1800, [(0, true), (1500, false), (1800, true), (2300, false), (2800, true), (3000, false)], 1),
            (2000, [(0, true), (1500, false), (2000, true), (3000, false)], 0),
        ]
        for c in cases {
            makeEngine()
            engine.play(.pulse(ms: 3000))
            run(untilMs: 1500)
            engine.suspend()
            run(untilMs: c.resumeMs)
            engine.resume()
            run(untilMs: 4000)
            assertEdges(c.edges)
            assertTrips(c.trips)
        }
    }

    /// Any effect, pattern, repeat count and strength: no stretch holds more than the cap, and
    /// every trip is followed by a full rest.
    func testNoStretchExceedsTheCapForAnyEffect() throws {
        let effects: [String] = ["1500,1", "300,40", "1900,100", "100,10", "2500", "700,0,700", "50,450", "1999,501"]
        for text in effects {
            for strength in [1, 0.5, 0.3] {
                for plays in [1, 3, nil] as [Int?] {
                    makeEngine()
                    engine.play(try HapticEffect.pattern(text, repeat: plays, strength: strength))
                    run(untilMs: 12_000)
                    let label = "\(text) ×\(plays.map(String.init) ?? "∞") at \(strength)"
                    for sum in stretches(minRestMs: 500) {
                        XCTAssertLessThanOrEqual(sum, 2000 + 1e-3, label)
                    }
                    XCTAssertLessThanOrEqual(onTime(untilMs: 12_000), 12_000 * 0.8 + 2_000 * 0.2 + 1e-3, label)
                    XCTAssertEqual(callbacks.value.load(ordering: .relaxed), engine.capTrips, label)
                }
            }
        }
    }

    /// Total on-time from `t0` to `end` ms.
    private func onTime(untilMs end: Double) -> Double {
        var total = 0.0, onAt: Double?
        for e in edges {
            if e.on { onAt = e.ms } else if let on = onAt { total += e.ms - on; onAt = nil }
        }
        return total + (onAt.map { end - $0 } ?? 0)
    }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a)", file: file, line: line) }
}
