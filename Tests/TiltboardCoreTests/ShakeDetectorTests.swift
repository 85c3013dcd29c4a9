import Foundation
import XCTest
import TiltboardCore

final class ShakeDetectorTests: XCTestCase {
    let axes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1), Vector3(1, -1, 1)]

    /// Starts at `t0` = 1 s; returns (events, t0).
    func shakeEvents(rate: Double, f: Double, a: Double, axis: Vector3, seed: UInt64 = 7,
                     phase: Double = 0.0037, base: Vector3 = Motion.flat, seconds: Double = 1) -> [ShakeEvent] {
        var detector = ShakeDetector()
        let trace = Trace(rateHz: rate, duration: 2 + seconds, seed: seed, phase: phase) { t in
            base + Motion.shake(t: t, t0: 1, duration: seconds, frequency: f, amplitude: a, axis: axis)
        }
        return trace.events(&detector)
    }

    /// When the `n`th half-cycle of a sine shake a·sin(2πf(t − 1)) reaches the 0.8 g threshold,
    /// plus one sample period. The high-pass passes at least 90 % of a 2 Hz swing (its 0.2 s time
    /// constant), which the crossing time allows for.
    static func halfCycle(_ n: Int, f: Double, a: Double, rate: Double) -> Double {
        let passed = Swift.min(1, 0.8 / (0.9 * a))
        return (Double(n - 1) / 2 + asin(passed) / (2 * .pi)) / f + 1 / rate
    }

    func testAFastShakeIsTakenOnItsThirdHalfCycleAtEveryAmplitudeAxisAndRate() {
        // Real shakes run at 2.5–4.5 Hz with 2–4 g peaks (UCR AllGestureWiimote, see
        // ShakeDetectorSettings); faster than 2.5 Hz, consecutive half-cycles begin under 200 ms apart.
        var worst = [String: Double]()
        for rate in [50.0, 100, 200, 500] {
            for a in [1.5, 2.5, 4.0] {
                for f in [3.0, 4, 5, 6] {
                    var latencies: [Double] = []
                    // Onsets at several points between two samples.
                    for (i, (axis, phase)) in axes.flatMap({ ax in [0.0, 0.0037, 0.0081].map { (ax, $0 / rate * 100) } }).enumerated() {
                        let events = shakeEvents(rate: rate, f: f, a: a, axis: axis, seed: UInt64(i + 1), phase: phase)
                        let label = "\(rate) Hz sampling, \(f) Hz shake, \(a) g, axis \(axis), phase \(phase)"
                        guard let started = events.first, started.phase == .started else {
                            XCTFail("no shake detected: \(label)"); continue
                        }
                        let latency = started.t - 1
                        // Not before the third half-cycle begins (two are a single move), and as it reaches the threshold.
                        XCTAssertGreaterThan(latency, 1 / f, label)
                        XCTAssertLessThanOrEqual(latency, Self.halfCycle(3, f: f, a: a, rate: rate) + 0.012, label)
                        XCTAssertGreaterThanOrEqual(started.startT, 1, label)
                        XCTAssertLessThan(started.startT, 1 + 0.5 / f, label)
                        // One shake, reported once, ending after the motion stops.
                        XCTAssertEqual(events.map(\.phase), [.started, .ended], label)
                        if let ended = events.last, ended.phase == .ended {
                            // 500 ms of quiet after the last sample over 0.5 g (just before 2 s).
                            XCTAssertGreaterThanOrEqual(ended.t, 2.0 + 0.5 - 0.08, label)
                            XCTAssertLessThanOrEqual(ended.t, 2.0 + 0.5 + 0.15, label)
                            // The largest sample of the high-passed swing: at 50 Hz a 6 Hz peak may
                            // fall 22° off a sample, and the swing's end rings a little over it.
                            XCTAssertEqual(ended.peakG, a, accuracy: 0.12 * a, label)
                            XCTAssertEqual(ended.startT, started.startT, label)
                        }
                        latencies.append(latency)
                    }
                    worst["rate \(Int(rate)) A \(a) f \(f)"] = latencies.max()
                }
            }
        }
        for key in worst.keys.sorted() {
            print("shake latency worst over axes, \(key): \(Int((worst[key]! * 1000).rounded())) ms")
        }
    }

    func testASlowShakeIsTakenOnItsFourthHalfCycle() {
        // Slower than 2.5 Hz the third half-cycle could be a single move's rebound: one more is needed.
        for rate in [50.0, 100, 200] {
            for (f, a) in [(1.2, 1.5), (2.0, 1.5), (2.0, 3.0)] {
                for axis in [Vector3(1, 0, 0), Vector3(0, 1, 0)] {
                    let events = shakeEvents(rate: rate, f: f, a: a, axis: axis, seconds: 2.5)
                    let label = "\(rate) Hz sampling, \(f) Hz shake, \(a) g, axis \(axis)"
                    guard let started = events.first, started.phase == .started else {
                        XCTFail("no shake detected: \(label)"); continue
                    }
                    XCTAssertGreaterThan(started.t - 1, 1.5 / f, label)
                    XCTAssertLessThanOrEqual(started.t - 1, Self.halfCycle(4, f: f, a: a, rate: rate) + 0.012, label)
                    XCTAssertEqual(events.map(\.phase), [.started, .ended], label)
                }
            }
        }
    }

    func testAShakeRightAfterLiftingAndTurningTheBoardIsTakenAsUsual() {
        // Many players lift the board and turn it up to 90° just before they shake it (UCR
        // AllGestureWiimote): gravity moves across the board while the shake starts.
        for rate in [50.0, 100, 200] {
            for turnSeconds in [0.3, 0.5] {
                var detector = ShakeDetector()
                let trace = Trace(rateHz: rate, duration: 4) { t in
                    let u = Swift.min(Swift.max((t - (1 - turnSeconds)) / turnSeconds, 0), 1)
                    let g = TiltAngles(pitchDeg: 0, rollDeg: 90 * (1 - cos(.pi * u)) / 2).gravity
                    let lift = Motion.pulse(t: t, t0: 1 - turnSeconds, ms: turnSeconds * 1000, peak: 0.5, axis: Vector3(0, 0, 1))
                    return g + lift + Motion.shake(t: t, t0: 1, duration: 1.5, frequency: 3.3, amplitude: 3, axis: Vector3(1, 0, 0))
                }
                let events = trace.events(&detector)
                let label = "\(rate) Hz, turned in \(turnSeconds) s"
                XCTAssertEqual(events.map(\.phase), [.started, .ended], label)
                // The turn's own push blurs the first stroke: by the fourth half-cycle at the latest.
                XCTAssertLessThanOrEqual((events.first?.t ?? 9) - 1, Self.halfCycle(4, f: 3.3, a: 3, rate: rate) + 0.012, label)
            }
        }
    }

    func testFiresOnASlowHandHeldBackAndForth() {
        // Back-and-forth by hand as recorded in BROAD's fast translation trials (Laidig et al.,
        // Data 6(7):72, 2021, CC BY 4.0): about 1.2 Hz, 1–1.5 g, starting from rest.
        for rate in [50.0, 100] {
            var detector = ShakeDetector()
            let trace = Trace(rateHz: rate, duration: 6) { t in
                Motion.flat + Motion.shake(t: t, t0: 1, duration: 3.5, frequency: 1.2, amplitude: 1.2, axis: Vector3(0, 1, 0))
            }
            let events = trace.events(&detector)
            XCTAssertEqual(events.map(\.phase), [.started, .ended], "\(rate) Hz")
            // The high-pass takes a third off a 1.2 Hz swing's first lobe: by the fourth half-cycle
            // after the first that counts, about 2 s.
            XCTAssertLessThanOrEqual((events.first?.t ?? 9) - 1, 2.2, "\(rate) Hz")
        }
    }

    func testFiresOnShakeOfATiltedBoard() {
        let base = TiltAngles(pitchDeg: 35, rollDeg: -20).gravity
        for (f, n) in [(2.0, 4), (4, 3), (6, 3)] {
            let events = shakeEvents(rate: 100, f: f, a: 1.5, axis: Vector3(1, 0, 0), base: base, seconds: 2)
            XCTAssertEqual(events.first?.phase, .started, "\(f) Hz")
            XCTAssertLessThanOrEqual((events.first?.t ?? 9) - 1, Self.halfCycle(n, f: f, a: 1.5, rate: 100) + 0.012, "\(f) Hz")
        }
    }

    func testUsesSuppliedGravityForWhichWayIsDown() {
        // A board being tilted while shaken: the supplied gravity follows the tilt exactly.
        for f in [3.0, 6] {
            var detector = ShakeDetector()
            let g: (Double) -> Vector3 = { Motion.tilt(t: $0, t0: 0.5, maxDeg: 90, rampSeconds: 1, linear: true) }
            let trace = Trace(rateHz: 100, duration: 3) { t in
                g(t) + Motion.shake(t: t, t0: 1, duration: 1, frequency: f, amplitude: 1.5, axis: Vector3(0, 1, 0))
            }
            let events = trace.events(&detector, gravity: g)
            XCTAssertEqual(events.map(\.phase), [.started, .ended])
            // Tilted towards 90°, the shake's axis turns vertical and its down strokes must beat
            // free fall, which a 1.5 g stroke does only past its threshold crossing.
            XCTAssertLessThanOrEqual((events.first?.t ?? 9) - 1, Self.halfCycle(4, f: f, a: 1.5, rate: 100) + 0.012)
            XCTAssertEqual(detector.gravityEstimate, g(trace.phase + 2.99))
        }
    }

    func testCooldownThenFiresAgain() {
        var detector = ShakeDetector()
        let trace = Trace(rateHz: 100, duration: 5) { t in
            Motion.flat
                + Motion.shake(t: t, t0: 1, duration: 0.5, frequency: 4, amplitude: 2, axis: Vector3(1, 0, 0))
                + Motion.shake(t: t, t0: 2.8, duration: 0.5, frequency: 4, amplitude: 2, axis: Vector3(0, 1, 0))
        }
        let events = trace.events(&detector)
        XCTAssertEqual(events.map(\.phase), [.started, .ended, .started, .ended])
        XCTAssertEqual(events.count, 4)
        if events.count == 4 {
            XCTAssertLessThanOrEqual(events[0].t - 1, Self.halfCycle(3, f: 4, a: 2, rate: 100) + 0.012)
            XCTAssertLessThanOrEqual(events[2].t - 2.8, Self.halfCycle(3, f: 4, a: 2, rate: 100) + 0.012)
            XCTAssertFalse(detector.isShaking)
        }
    }

    func testShakeInsideCooldownIsIgnored() {
        var settings = ShakeDetectorSettings()
        settings.cooldownMs = 2000
        var detector = ShakeDetector(settings: settings)
        let trace = Trace(rateHz: 100, duration: 5) { t in
            Motion.flat
                + Motion.shake(t: t, t0: 1, duration: 0.5, frequency: 4, amplitude: 2, axis: Vector3(1, 0, 0))
                + Motion.shake(t: t, t0: 2.2, duration: 0.5, frequency: 4, amplitude: 2, axis: Vector3(1, 0, 0))
        }
        XCTAssertEqual(trace.events(&detector).map(\.phase), [.started, .ended])
    }

    func testReportsPeakAndIsShaking() {
        var detector = ShakeDetector()
        var sawShaking = false
        for i in 0..<300 {
            let t = Double(i) / 100
            let a = Motion.flat + Motion.shake(t: t, t0: 1, duration: 1, frequency: 3, amplitude: 2.5, axis: Vector3(0, 0, 1))
            if let e = detector.update(t: t, accel: a), e.phase == .started {
                XCTAssertTrue(detector.isShaking)
                XCTAssertGreaterThan(e.peakG, 0.8)
                sawShaking = true
            }
        }
        XCTAssertTrue(sawShaking)
        XCTAssertFalse(detector.isShaking)
        XCTAssertEqual(detector.lastPeakG, 2.5, accuracy: 0.05)
    }

    // MARK: - Motions that must never fire

    func falseCases(rate: Double) -> [(String, Trace)] {
        var cases: [(String, Trace)] = []
        cases.append(("noise at rest", Trace(rateHz: rate, duration: 20) { _ in Motion.flat }))
        for linear in [true, false] {
            for aboutRoll in [false, true] {
                for seconds in [2.0, 1.0, 0.5] {
                    cases.append(("tilt 0→90° over \(seconds) s and back, linear \(linear), roll \(aboutRoll)",
                                  Trace(rateHz: rate, duration: 6) { t in
                        Motion.tilt(t: t, t0: 1, maxDeg: 90, rampSeconds: seconds, linear: linear, aboutRoll: aboutRoll)
                    }))
                }
            }
        }
        for ms in [10.0, 15, 20] {
            for axis in axes {
                cases.append(("tap 3 g \(ms) ms along \(axis)", Trace(rateHz: rate, duration: 3) { t in
                    // The spike, then the board ringing briefly the other way.
                    Motion.flat + Motion.pulse(t: t, t0: 1, ms: ms, peak: 3, axis: axis)
                        + Motion.pulse(t: t, t0: 1 + ms / 1000, ms: 12, peak: -0.7, axis: axis)
                }))
                cases.append(("square tap 3 g \(ms) ms along \(axis)", Trace(rateHz: rate, duration: 3) { t in
                    Motion.flat + ((t >= 1 && t < 1 + ms / 1000) ? axis.normalized * 3 : .zero)
                }))
            }
        }
        for impact in [1.0, 1.5, 2.0] {
            for startTilt in [0.0, 20, -25] {
                cases.append(("put down, impact \(impact) g, held at \(startTilt)°", Trace(rateHz: rate, duration: 5) { t in
                    // Lowered 30 cm over 1.2 s while levelling, then the table stops it.
                    let lowerStart = 1.0, lowerTime = 1.2
                    let r = t - lowerStart
                    var tiltDeg = startTilt
                    var lin = Vector3.zero
                    if r >= 0 && r < lowerTime {
                        tiltDeg = startTilt * (1 + cos(.pi * r / lowerTime)) / 2
                        // Down, then braking: peak ±0.13 g.
                        lin = Vector3(0, 0, -0.13 * sin(2 * .pi * r / lowerTime))
                    } else if r >= lowerTime {
                        tiltDeg = 0
                    }
                    let landing = lowerStart + lowerTime
                    let g = TiltAngles(pitchDeg: tiltDeg, rollDeg: 0).gravity
                    return g + lin
                        + Motion.pulse(t: t, t0: landing, ms: 20, peak: impact, axis: Vector3(0, 0, 1))
                        + Motion.pulse(t: t, t0: landing + 0.02, ms: 15, peak: -0.3, axis: Vector3(0, 0, 1))
                }))
            }
        }
        for vertical in [0.3, 0.5] {
            cases.append(("walking \(vertical) g", Trace(rateHz: rate, duration: 20) { t in
                // Steps at 2 Hz, side-to-side sway at the stride rate, the board rocking ±8°.
                let g = TiltAngles(pitchDeg: 8 * sin(2 * .pi * 1 * t + 0.4), rollDeg: 5 * sin(2 * .pi * 1 * t)).gravity
                return g + Vector3(0.2 * sin(2 * .pi * 1 * t), 0.1 * sin(2 * .pi * 2 * t + 1),
                                   vertical * sin(2 * .pi * 2 * t))
            }))
        }
        // Single gestures: two opposite half-cycles (accelerate, brake) are not a back-and-forth.
        for seconds in [0.2, 0.3, 0.5, 0.8] {
            for peak in [1.0, 2.0, 3.0] {
                for axis in axes {
                    cases.append(("brisk move \(seconds) s \(peak) g along \(axis) with a rebound", Trace(rateHz: rate, duration: 3) { t in
                        Motion.flat + Motion.briskMove(t: t, t0: 1, seconds: seconds, peak: peak, axis: axis, overshoot: 0.25)
                    }))
                    cases.append(("push \(seconds) s \(peak) g along \(axis)", Trace(rateHz: rate, duration: 3) { t in
                        Motion.flat + Motion.push(t: t, t0: 1, seconds: seconds, peak: peak, axis: axis)
                    }))
                }
                cases.append(("circles, \(2 * seconds) s a turn, \(peak) g", Trace(rateHz: rate, duration: 4) { t in
                    Motion.flat + Motion.circle(t: t, t0: 1, seconds: 2 * seconds, turns: 2, peak: peak)
                }))
                cases.append(("pick-up \(2 * seconds) s \(peak) g", Trace(rateHz: rate, duration: 4) { t in
                    Motion.pickUp(t: t, t0: 1, seconds: 2 * seconds, peak: peak)
                }))
            }
        }
        for (stepHz, impact) in [(1.6, 1.0), (2.0, 1.5), (2.4, 2.0)] {
            cases.append(("stairs at \(stepHz) steps/s, \(impact) g strikes", Trace(rateHz: rate, duration: 20) { t in
                Motion.flat + Motion.stairs(t: t, stepHz: stepHz, impact: impact, dip: 0.9)
            }))
        }
        return cases
    }

    func testNoFalsePositives() {
        var checked = 0
        for rate in [50.0, 100, 200, 500] {
            for (i, (name, trace)) in falseCases(rate: rate).enumerated() {
                var trace = trace
                trace.seed = UInt64(100 + i)
                var detector = ShakeDetector()
                let events = trace.events(&detector)
                XCTAssertEqual(events.count, 0, "\(name) at \(rate) Hz fired: \(events)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 600)
    }

    func testATiltIsNotMotionAndTheOwnGravityEstimateFollowsIt() {
        // Turning the board takes gravity across it; the high-pass must see a turn as far less
        // than a stroke, and the own estimate (which way is down) must follow.
        for seconds in [2.0, 1.0, 0.5] {
            var detector = ShakeDetector()
            var loudest = 0.0, worstLag = 0.0
            for i in 0..<800 {
                let t = Double(i) / 100
                let g = Motion.tilt(t: t, t0: 1, maxDeg: 90, rampSeconds: seconds, linear: false)
                _ = detector.update(t: t, accel: g)
                loudest = max(loudest, detector.lastLinearG)
                if let estimate = detector.gravityEstimate { worstLag = max(worstLag, (estimate - g).length) }
            }
            // 90° in half a second peaks at 4.4 g/s of change: a 0.2 s high-pass leaves under 0.7 g,
            // under the 0.8 g threshold; slower turns far less.
            XCTAssertLessThan(loudest, seconds < 1 ? 0.75 : 0.45, "\(seconds) s")
            XCTAssertLessThan(worstLag, 1.0, "\(seconds) s")
            XCTAssertEqual((detector.gravityEstimate ?? .zero).z, 1, accuracy: 0.01, "settled after \(seconds) s")
        }
    }

    func testASampleStampedBeforeThePreviousMovesNoFilterAndSetsNoClockBack() throws {
        let tilted = Vector3(0.1, 0, 0.995)
        var inOrder = ShakeDetector()
        var steppedBack = ShakeDetector()
        for i in 0...100 {
            _ = inOrder.update(t: Double(i) / 100, accel: .unitZ)
            _ = steppedBack.update(t: Double(i) / 100, accel: .unitZ)
        }
        for t in [1.01, 1.02] {
            _ = inOrder.update(t: t, accel: tilted)
            _ = steppedBack.update(t: t, accel: tilted)
            if t == 1.01 { _ = steppedBack.update(t: 1.008, accel: tilted) }  // 2 ms back
        }
        let expected = try XCTUnwrap(inOrder.gravityEstimate)
        let estimate = try XCTUnwrap(steppedBack.gravityEstimate)
        XCTAssertGreaterThan(expected.x, 0.001, "the estimate moved towards the tilt")
        XCTAssertEqual(estimate.x, expected.x, accuracy: 1e-12)
        XCTAssertEqual(estimate.z, expected.z, accuracy: 1e-12)
    }

    func testTwoHalfCyclesAreAShakeOnlyWhenSettingsSaySo() {
        let move = Trace(rateHz: 100, duration: 3) { t in
            Motion.flat + Motion.briskMove(t: t, t0: 1, seconds: 0.3, peak: 2, axis: Vector3(1, 0, 0))
        }
        var standard = ShakeDetector()
        XCTAssertEqual(move.events(&standard).count, 0)
        var settings = ShakeDetectorSettings()
        settings.minReversals = 1
        var lenient = ShakeDetector(settings: settings)
        let events = move.events(&lenient)
        XCTAssertEqual(events.map(\.phase), [.started, .ended])
        // The second half-cycle (braking) starts at 1.15 s, 150 ms after the first: quick enough
        // to count on its own once its direction has formed.
        XCTAssertEqual(events.first?.t ?? 0, 1.15 + asin(0.4) / (2 * .pi) * 0.3, accuracy: 0.02)
    }

    func testFootstepsAreRejectedTwiceOverByTheirShortSpikesAndByFreeFall() {
        // Strikes and dips over the threshold, alternating along one axis, at a shake's rhythm —
        // but brief, and the dips no deeper than free fall. Either rule alone turns them away.
        // Standing for a second, then going down stairs.
        let stairs = Trace(rateHz: 50, duration: 10) { t in
            Motion.flat + (t < 1 ? .zero : Motion.stairs(t: t - 1, stepHz: 2, impact: 1.5, dip: 0.95))
        }
        func events(minFraction: Double, freeFallG: Double) -> Int {
            var settings = ShakeDetectorSettings()
            settings.minFraction = minFraction
            settings.freeFallG = freeFallG
            var detector = ShakeDetector(settings: settings)
            return stairs.events(&detector).count
        }
        XCTAssertEqual(events(minFraction: 0.6, freeFallG: 1.05), 0)
        XCTAssertEqual(events(minFraction: 0, freeFallG: 1.05), 0)
        XCTAssertEqual(events(minFraction: 0.6, freeFallG: 0), 0)
        XCTAssertGreaterThan(events(minFraction: 0, freeFallG: 0), 0)
    }

    func testFreeFallIsNotAStrokeButAHandPushingDownIs() {
        // Shaken straight up and down: 1 g strokes only reach free fall, 1.3 g ones beat it.
        for (a, expected) in [(1.0, 0), (1.3, 2)] {
            var detector = ShakeDetector()
            let trace = Trace(rateHz: 100, duration: 3) { t in
                Motion.flat + Motion.shake(t: t, t0: 1, duration: 1, frequency: 3, amplitude: a, axis: Vector3(0, 0, 1))
            }
            XCTAssertEqual(trace.events(&detector).count, expected, "\(a) g")
        }
        // Dropped 20 cm onto a cushion (0.2 s of free fall, then stopped at 2 g), and bouncing once.
        for rate in [50.0, 100] {
            var detector = ShakeDetector()
            let drop = Trace(rateHz: rate, duration: 3) { t in
                let r = t - 1
                if r >= 0 && r < 0.2 { return .zero }
                return Motion.flat + Motion.pulse(t: t, t0: 1.2, ms: 100, peak: 2, axis: Vector3(0, 0, 1))
                    + Motion.pulse(t: t, t0: 1.3, ms: 120, peak: -0.9, axis: Vector3(0, 0, 1))
                    + Motion.pulse(t: t, t0: 1.42, ms: 60, peak: 1.2, axis: Vector3(0, 0, 1))
            }
            XCTAssertEqual(drop.events(&detector).count, 0, "\(rate) Hz")
        }
    }

    func testStartingMidStrideMakesNoShakeAndAShakeAfterIsFound() {
        // Started on the stairs: the first sample (a heel strike) seeds both filters off by a
        // fraction of a g. Neither the footsteps nor the filters settling make a shake; a real
        // shake afterwards is found as usual — with the own estimate, or with gravity supplied.
        let trace = Trace(rateHz: 50, duration: 8) { t in
            if t < 4 { return Motion.flat + Motion.stairs(t: t, stepHz: 2, impact: 1.5, dip: 0.95) }
            return Motion.flat + Motion.shake(t: t, t0: 5, duration: 1, frequency: 4, amplitude: 1.5, axis: Vector3(1, 0, 0))
        }
        var own = ShakeDetector()
        let events = trace.events(&own)
        XCTAssertEqual(events.map(\.phase), [.started, .ended])
        XCTAssertGreaterThan(events.first?.t ?? 0, 5.25)
        var supplied = ShakeDetector()
        XCTAssertEqual(trace.events(&supplied, gravity: { _ in Motion.flat }).map(\.phase), [.started, .ended])
    }

    func testNotesSayWhyARunWasOrWasNotTaken() {
        final class Notes: @unchecked Sendable {
            private let lock = NSLock()
            private var items: [ShakeNote] = []
            func add(_ note: ShakeNote) { lock.lock(); items.append(note); lock.unlock() }
            var all: [ShakeNote] { lock.lock(); defer { lock.unlock() }; return items }
        }
        func notes(_ trace: Trace) -> [ShakeNote] {
            let box = Notes()
            var detector = ShakeDetector()
            detector.onNote = { box.add($0) }
            _ = trace.events(&detector)
            return box.all
        }
        // A fast shake: three half-cycles joining one run, then taken.
        let shake = notes(Trace(rateHz: 100, duration: 3) { t in
            Motion.flat + Motion.shake(t: t, t0: 1, duration: 1, frequency: 4, amplitude: 2, axis: Vector3(1, 0, 0))
        })
        let numbers = shake.compactMap { note -> Int? in
            if case let .halfCycle(number, _, _, _, _, _) = note { return number }
            return nil
        }
        XCTAssertEqual(Array(numbers.prefix(3)), [1, 2, 3])
        guard case let .taken(halfCycles, _, sideways, turning, busy)? = shake.first(where: {
            if case .taken = $0 { return true } else { return false }
        }) else { return XCTFail("no taken note: \(shake)") }
        XCTAssertEqual(halfCycles, 3)
        XCTAssertLessThan(sideways, 0.05)
        XCTAssertLessThan(turning, 0.1)
        XCTAssertGreaterThan(busy, 0.6)
        if case let .halfCycle(_, _, _, direction, gap, gravity) = shake[1] {
            XCTAssertLessThan(direction.x, -0.95, "the second half-cycle points back")
            XCTAssertEqual(gap ?? 0, 125, accuracy: 25)
            XCTAssertEqual(gravity.z, 1, accuracy: 0.05)
        } else { XCTFail("\(shake[1])") }

        // A slow swing is held on its third half-cycle, for want of a fourth.
        let slow = notes(Trace(rateHz: 100, duration: 4) { t in
            Motion.flat + Motion.shake(t: t, t0: 1, duration: 2, frequency: 2, amplitude: 2, axis: Vector3(1, 0, 0))
        })
        XCTAssertTrue(slow.contains { if case .held(3, _, .slow) = $0 { return true } else { return false } }, "\(slow)")

        // Circles: the acceleration turns, and the run is held for it.
        let circle = notes(Trace(rateHz: 100, duration: 4) { t in
            Motion.flat + Motion.circle(t: t, t0: 1, seconds: 0.4, turns: 3, peak: 2)
        })
        XCTAssertFalse(circle.contains { if case .taken = $0 { return true } else { return false } }, "\(circle)")

        // Straight up and down at 1 g: the down strokes only reach free fall.
        let vertical = notes(Trace(rateHz: 100, duration: 3) { t in
            Motion.flat + Motion.shake(t: t, t0: 1, duration: 1, frequency: 3, amplitude: 1, axis: Vector3(0, 0, 1))
        })
        XCTAssertTrue(vertical.contains { if case let .freeFall(_, downG) = $0 { return downG < 1.05 } else { return false } }, "\(vertical)")

        // A run that stops: no burst within a second of the last.
        let move = notes(Trace(rateHz: 100, duration: 4) { t in
            Motion.flat + Motion.briskMove(t: t, t0: 1, seconds: 0.3, peak: 2, axis: Vector3(1, 0, 0))
        })
        XCTAssertTrue(move.contains { if case .runEnded(_, _, .tooLate) = $0 { return true } else { return false } }, "\(move)")
    }

    func testSettingsRoundTripThroughJSON() throws {
        var s = ShakeDetectorSettings()
        s.thresholdG = 1.1
        s.cooldownMs = 800
        let data = try JSONEncoder().encode(s)
        XCTAssertEqual(try JSONDecoder().decode(ShakeDetectorSettings.self, from: data), s)
    }
}

final class ShakeDetectorRecoveryTests: XCTestCase {
    func testQuickFlipThenRestDoesNotLeaveItShaking() {
        // Flipped face down within 100 ms, then left still: whatever the verdict on the flip,
        // the detector must settle and report no shake in progress.
        var detector = ShakeDetector()
        let trace = Trace(rateHz: 100, duration: 4) { t in
            let u = Swift.min(Swift.max((t - 1) / 0.1, 0), 1)
            return TiltAngles(pitchDeg: 180 * u, rollDeg: 0).gravity
        }
        let events = trace.events(&detector)
        XCTAssertFalse(detector.isShaking, "\(events)")
        XCTAssertEqual(events.count % 2, 0, "\(events)")
        XCTAssertEqual((detector.gravityEstimate ?? .zero).z, -1, accuracy: 0.02)
        // And a real shake afterwards is still seen.
        var later = Trace(rateHz: 100, duration: 3) { t in
            Vector3(0, 0, -1) + Motion.shake(t: t, t0: 5.5, duration: 1, frequency: 3, amplitude: 1.5, axis: Vector3(1, 0, 0))
        }
        later.phase = 4.0037
        XCTAssertEqual(later.events(&detector).map(\.phase), [.started, .ended])
    }
}
