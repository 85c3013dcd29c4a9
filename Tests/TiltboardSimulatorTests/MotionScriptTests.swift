import Foundation
import TiltboardCore
import TiltboardSimulator
import XCTest

final class MotionScriptTests: XCTestCase {
    func assertClose(_ a: Vector3, _ b: Vector3, _ tol: Double = 1e-9, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertLessThan((a - b).length, tol, "\(a) vs \(b) \(message)", file: file, line: line)
    }

    func testHoldPosesGiveTiltAnglesGravity() throws {
        let poses = [TiltAngles(pitchDeg: 0, rollDeg: 0), TiltAngles(pitchDeg: 30, rollDeg: -20),
                     TiltAngles(pitchDeg: 180, rollDeg: 0), TiltAngles(pitchDeg: -90, rollDeg: 0),
                     TiltAngles(pitchDeg: 0, rollDeg: 90), TiltAngles(pitchDeg: 120, rollDeg: 45)]
        let script = try MotionScript(segments: poses.map { .hold($0, seconds: 1) })
        for (i, pose) in poses.enumerated() {
            let s = script.state(at: Double(i) + 0.5)
            assertClose(s.accelG, pose.gravity, 1e-12, "pose \(pose)")
            XCTAssertEqual(s.gyroDps, .zero)
        }
        assertClose(script.state(at: 100).accelG, poses.last!.gravity, 1e-12, "last pose holds forever")
        XCTAssertEqual(script.durationSeconds, 6)
    }

    func testRotationEndsAtTargetAndGyroMatchesGravityChange() throws {
        let from = TiltAngles(pitchDeg: 10, rollDeg: -30), to = TiltAngles(pitchDeg: -50, rollDeg: 40)
        let script = try MotionScript(segments: [.hold(from, seconds: 1), .rotate(to: to, seconds: 2)])
        assertClose(script.state(at: 1).accelG, from.gravity, 1e-12)
        assertClose(script.state(at: 3).accelG, to.gravity, 1e-9)
        XCTAssertEqual(script.state(at: 1).gyroDps.length, 0, accuracy: 1e-9, "eased: starts at rest")
        var peakRate = 0.0
        for i in 1..<40 {
            let t = 1 + Double(i) * 0.05, h = 1e-6
            let g = script.state(at: t)
            let derivative = (script.state(at: t + h).accelG - script.state(at: t - h).accelG) / (2 * h)
            let omega = g.gyroDps * (Double.pi / 180)
            // d(g_b)/dt = −ω × g_b
            assertClose(derivative, -omega.cross(g.accelG), 1e-6, "t = \(t)")
            XCTAssertEqual(g.accelG.length, 1, accuracy: 1e-12)
            peakRate = max(peakRate, g.gyroDps.length)
        }
        XCTAssertGreaterThan(peakRate, 30, "a 80-odd degree turn in 2 s")
    }

    func testShakeStartsAtFullAmplitudeWithPeakAndFrequency() throws {
        let script = try MotionScript(segments: [.hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1),
                                                 .shake(axis: Vector3(2, 0, 0), frequencyHz: 4, peakG: 2, seconds: 1)])
        XCTAssertEqual(script.state(at: 1 + 1.0 / 16).accelG.x, 2, accuracy: 1e-9, "a quarter period in: full peak")
        var peak = 0.0, crossings = 0, previous = 0.0
        for i in 0...1000 {
            let x = script.state(at: 1 + Double(i) / 1000 * 0.999).accelG.x
            peak = max(peak, abs(x))
            if i > 0 && (previous < 0) != (x < 0) && x != 0 { crossings += 1 }
            previous = x
        }
        XCTAssertEqual(peak, 2, accuracy: 1e-3)
        XCTAssertEqual(crossings, 7, "4 Hz over 1 s: 8 half-cycles")
        XCTAssertEqual(script.state(at: 0.5).accelG, .unitZ)
        XCTAssertEqual(script.state(at: 2.5).accelG, .unitZ)
    }

    func testTapPutDownAndWalk() throws {
        let tap = MotionScript.builtIn(named: "tap")!
        let tz = stride(from: 0.5, to: 1.0, by: 0.0005).map { tap.state(at: $0).accelG.z - 1 }
        XCTAssertEqual(tz.min()!, -3, accuracy: 0.01, "3 g spike downwards")
        XCTAssertEqual(tz.firstIndex(of: tz.min()!)!, 20, "at the middle of the 20 ms spike")
        XCTAssertEqual(tz.max()!, 1.2, accuracy: 0.01, "the rebound, at most 1.2 g")
        XCTAssertEqual(tz.reduce(0) { $0 + $1 * 0.0005 }, 0, accuracy: 1e-4, "the board ends at rest")
        XCTAssertNotEqual(tap.state(at: 0.5 + 0.2).accelG, .unitZ, "still swinging back after 200 ms")
        XCTAssertEqual(tap.state(at: 0.5 + 0.02 + (0.06 / 1.2 + 0.035) + 0.1 + 0.001).accelG, .unitZ, "over after 205 ms")
        // A light tap rebounds by its area: 1 g over 20 ms gives 1 × 0.02 / 0.045 g.
        let light = try MotionScript(segments: [.tap(axis: Vector3(1, 0, 0), peakG: 1, spikeSeconds: 0.02, seconds: 0.5)])
        let lx = stride(from: 0, to: 0.5, by: 0.0005).map { light.state(at: $0).accelG.x }
        XCTAssertEqual(lx.max()!, 1, accuracy: 1e-6)
        XCTAssertEqual(lx.min()!, -0.02 / 0.045, accuracy: 1e-3)
        XCTAssertEqual(lx.reduce(0) { $0 + $1 * 0.0005 }, 0, accuracy: 1e-4)
        XCTAssertEqual(tap.state(at: 0.5 + 0.01).accelG.x, 0, "along its axis only")

        let putDown = MotionScript.builtIn(named: "put-down")!
        let zs = stride(from: 0.5, to: 1.5, by: 0.0005).map { putDown.state(at: $0).accelG.z }
        XCTAssertEqual(zs.max()!, 2.5, accuracy: 0.01, "1.5 g impact")
        XCTAssertLessThan(zs.min()!, 0.95, "lowered first")
        XCTAssertGreaterThan(zs.min()!, 0.8)
        // The dip and the impact cancel: the board ends at rest.
        let velocity = zs.reduce(0) { $0 + ($1 - 1) * 0.0005 }
        XCTAssertEqual(velocity, 0, accuracy: 1e-3)

        // Walking and stairs, shaped on UCI HAPT: one heel strike per step, the median step
        // peaking at bounceG, steps ±25 %, troughs about half as deep, sway 0.3 × bounceG.
        for (name, bounce, stepHz, highest, lowest) in [("walk", 0.67, 1.92, 0.835, -0.3995),
                                                         ("stairs", 0.93, 1.89, 1.159, -0.5546),
                                                         ("stairs-up", 0.71, 1.82, 0.8848, -0.4234)] {
            let script = MotionScript.builtIn(named: name)!
            XCTAssertEqual(script.durationSeconds!, 9, accuracy: 1e-9, name)
            XCTAssertEqual(script.segments[1], .walk(bounceG: bounce, stepHz: stepHz, seconds: 8), name)
            let states = stride(from: 0.5, to: 8.5, by: 0.001).map { script.state(at: $0).accelG }
            let z = states.map { $0.z - 1 }
            XCTAssertEqual(z.max()!, highest, accuracy: 0.002, name)
            XCTAssertEqual(z.min()!, lowest, accuracy: 0.002, name)
            var strikes = 0, aboveMedian = 0
            for i in 1..<(z.count - 1) where z[i] > 0.3 && z[i] >= z[i - 1] && z[i] > z[i + 1] {
                strikes += 1
                if z[i] > bounce { aboveMedian += 1 }
            }
            XCTAssertEqual(strikes, 14, "\(name): about 15 steps in 8 s, the first and last faded")
            XCTAssertTrue((7...8).contains(aboveMedian), "\(name): \(aboveMedian) of \(strikes) above the median")
            XCTAssertEqual(states.map { abs($0.x) }.max()!, 0.3 * bounce, accuracy: 0.005, name)
            XCTAssertEqual(states.map { abs($0.y) }.max()!, 0.3 * bounce, accuracy: 0.005, name)
            XCTAssertEqual(z.reduce(0) { $0 + $1 * 0.001 }, 0, accuracy: 0.02, "\(name): no net climb")
            XCTAssertEqual(script.state(at: 0.5).accelG, .unitZ, "\(name): starts from rest")
        }
    }

    func testSwingIsBroadFastTranslation() throws {
        let swing = MotionScript.builtIn(named: "swing")!
        XCTAssertEqual(swing.durationSeconds, 6)
        let a = stride(from: 1.001, to: 5.0, by: 0.001).map { swing.state(at: $0).accelG }
        XCTAssertEqual(a.map(\.x).max()!, 1.8 / Vector3(1, 0.4, 0).length, accuracy: 1e-3)
        XCTAssertEqual(a.map(\.y).max()!, 0.4 * 1.8 / Vector3(1, 0.4, 0).length, accuracy: 1e-3)
        var reversals = 0
        for i in 1..<a.count where (a[i].x > 0) != (a[i - 1].x > 0) { reversals += 1 }
        XCTAssertEqual(reversals, 10, "1.3 Hz over 4 s")
    }

    func testMoveSegmentPushesStopsAndRebounds() throws {
        // Push 2 g for 0.2 s along x, stop in 0.1 s (so 4 g), rebound 0.25 × 4 g = 1 g for 0.1 s,
        // return 0.25 g over 0.4 s.
        let script = try MotionScript(segments: [
            .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1),
            .move(axis: Vector3(2, 0, 0), peakG: 2, accelSeconds: 0.2, stopSeconds: 0.1, rebound: 0.25, seconds: 1)])
        func x(_ t: Double) -> Double { script.state(at: t).accelG.x }
        XCTAssertEqual(x(1 + 0.1), 2, accuracy: 1e-9, "the push's peak halfway through it")
        XCTAssertEqual(x(1 + 0.05), 2 * sin(Double.pi / 4), accuracy: 1e-9)
        XCTAssertEqual(x(1 + 0.25), -4, accuracy: 1e-9, "the stop: as much again in half the time")
        XCTAssertEqual(x(1 + 0.35), 1, accuracy: 1e-9, "the rebound, the push's way first")
        XCTAssertEqual(x(1 + 0.6), -0.25, accuracy: 1e-9, "and slowly back")
        XCTAssertEqual(x(1 + 0.45), -0.25 * sin(Double.pi / 8), accuracy: 1e-9)
        XCTAssertEqual(script.state(at: 1 + 0.25).accelG.z, 1, accuracy: 1e-12, "along its axis only")
        XCTAssertEqual(script.state(at: 1 + 0.81).accelG, .unitZ, "at rest after 0.8 s")
        XCTAssertEqual(script.state(at: 1 + 0.25).gyroDps, .zero)
        let xs = stride(from: 1.0, to: 2.0, by: 0.0001).map { x($0) }
        XCTAssertEqual(xs.reduce(0) { $0 + $1 * 0.0001 }, 0, accuracy: 1e-6, "the board ends at rest")
        XCTAssertEqual(xs.max()!, 2, accuracy: 1e-6)
        XCTAssertEqual(xs.min()!, -4, accuracy: 1e-6)
        // Without a rebound the move is over after the stop; a negative peak turns everything round.
        let plain = try MotionScript(segments: [
            .move(axis: Vector3(0, 1, 0), peakG: -1, accelSeconds: 0.3, stopSeconds: 0.3, rebound: 0.5, seconds: 2.1)])
        XCTAssertEqual(plain.state(at: 0.15).accelG.y, -1, accuracy: 1e-9)
        XCTAssertEqual(plain.state(at: 0.45).accelG.y, 1, accuracy: 1e-9)
        XCTAssertEqual(plain.state(at: 0.75).accelG.y, -0.5, accuracy: 1e-9, "rebound the push's way: down")
        XCTAssertEqual(plain.state(at: 1.5).accelG.y, 0.125, accuracy: 1e-9)
        let none = try MotionScript(segments: [
            .move(axis: Vector3(0, 1, 0), peakG: 1, accelSeconds: 0.3, stopSeconds: 0.3, rebound: 0, seconds: 0.6),
            .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1)])
        XCTAssertEqual(none.state(at: 0.6 + 0.15).accelG, .unitZ)
        XCTAssertThrowsError(try MotionScript(segments: [
            .move(axis: Vector3(1, 0, 0), peakG: 1, accelSeconds: 0.2, stopSeconds: 0.1, rebound: 0.2, seconds: 0.4)])) {
            guard case let .moveTooShort(1, least, given)? = ($0 as? MotionScriptError)?.problem else { return XCTFail("\($0)") }
            XCTAssertEqual(least, .milliseconds(800))
            XCTAssertEqual(given, .milliseconds(400))
        }
    }

    func testCircleSegmentTurnsItsAccelerationRound() throws {
        let seconds = 1.33, peak = 1.83
        let script = try MotionScript(segments: [
            .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1),
            .circle(axis: Vector3(3, 0, 0), across: Vector3(1, 0, 1), turns: 1, peakG: peak, aspect: 1, seconds: seconds)])
        func linear(_ tau: Double) -> Vector3 { script.state(at: 1 + tau).accelG - .unitZ }
        XCTAssertEqual(linear(0).length, 0, accuracy: 1e-12, "from rest")
        // Halfway round it is fastest and only turns: θ = π, all centripetal, pointing back along +x.
        assertClose(linear(seconds / 2), Vector3(peak, 0, 0), 1e-9)
        // A quarter of the time in: θ = π/2 − 1, θ′² = θ″ = 4π²/T², a quarter of the peak's 16π²/T²
        // on each of the two components: (−sin θ − cos θ, cos θ − sin θ) · √2-long.
        let theta = Double.pi / 2 - 1
        assertClose(linear(seconds / 4), Vector3(-sin(theta) - cos(theta), 0, cos(theta) - sin(theta)) * (peak / 4), 1e-9)
        XCTAssertEqual(linear(seconds / 4).length, peak * 2.squareRoot() / 4, accuracy: 1e-9)
        XCTAssertEqual(script.state(at: 1 + seconds + 0.01).accelG, .unitZ, "back at rest")
        XCTAssertEqual(linear(seconds / 3).y, 0, accuracy: 1e-12, "in the x–z plane")
        // Its direction turns one way only, through 1.5 turns while over 0.2 g, and never exceeds the peak.
        var largest = 0.0, swept = 0.0, backwards = 0.0
        var last: Double?
        for i in 0...4000 {
            let a = linear(Double(i) / 4000 * seconds)
            largest = max(largest, a.length)
            guard a.length > 0.2 else { continue }
            let angle = atan2(a.z, a.x)
            if let last {
                var d = angle - last
                if d > .pi { d -= 2 * .pi } else if d < -.pi { d += 2 * .pi }
                swept += d
                backwards = min(backwards, d)
            }
            last = angle
        }
        XCTAssertEqual(largest, peak, accuracy: 1e-6)
        XCTAssertEqual(swept / (2 * .pi), 1.5, accuracy: 0.02)
        XCTAssertEqual(backwards, 0, "it turns, it does not reverse")
        XCTAssertThrowsError(try MotionScript(segments: [
            .circle(axis: Vector3(1, 0, 0), across: Vector3(-2, 0, 0), turns: 1, peakG: 1, aspect: 1, seconds: 1)])) {
            XCTAssertEqual($0 as? MotionScriptError, MotionScriptError(.alongAxis(segment: 1, kind: "circle", key: "across")))
        }
        XCTAssertThrowsError(try MotionScript(segments: [
            .circle(axis: Vector3(1, 0, 0), across: Vector3(0, 0, 1), turns: 0, peakG: 1, aspect: 1, seconds: 1)]))
        // Squashed to an ellipse, the part across the axis shrinks and the peak (halfway, along it) stays.
        let ellipse = try MotionScript(segments: [
            .circle(axis: Vector3(1, 0, 0), across: Vector3(0, 0, 1), turns: 1, peakG: peak, aspect: 0.5, seconds: seconds)])
        assertClose(ellipse.state(at: seconds / 4).accelG - .unitZ,
                    Vector3(-sin(theta) - cos(theta), 0, 0.5 * (cos(theta) - sin(theta))) * (peak / 4), 1e-9)
        assertClose(ellipse.state(at: seconds / 2).accelG - .unitZ, Vector3(peak, 0, 0), 1e-9)
    }

    func testWristShakeSwingsAboutItsPivot() throws {
        let swing = 18.5 * Double.pi / 180, omega = 6 * Double.pi
        let script = try MotionScript(segments: [
            .hold(TiltAngles(pitchDeg: 0, rollDeg: 0), seconds: 1),
            .wristShake(axis: Vector3(2, 0, 0), pivot: Vector3(1, -1, 0), frequencyHz: 3, peakG: 3, swingDeg: 18.5,
                        seconds: 7.0 / 6)])
        // A full-size half-cycle's peak (2.5 half-periods in): swung furthest, at rest for an
        // instant, all tangential. Flat, the turn (about z) leaves gravity alone.
        assertClose(script.state(at: 1 + 2.5 / 6).accelG, Vector3(3, 0, 1), 1e-9)
        XCTAssertEqual(script.state(at: 1 + 2.5 / 6).gyroDps.length, 0, accuracy: 1e-9)
        // Half a half-period later it passes the middle at full speed: no tangential part, the
        // pull toward the pivot (−y) is peakG × the swing in radians, and the gyro reads Φω about −z.
        assertClose(script.state(at: 1 + 3.0 / 6).accelG, Vector3(0, -3 * swing, 1), 1e-9)
        assertClose(script.state(at: 1 + 3.0 / 6).gyroDps, Vector3(0, 0, -swing * omega * 180 / Double.pi), 1e-6)
        XCTAssertEqual(script.state(at: 1).accelG, .unitZ, "from rest")
        XCTAssertEqual(script.state(at: 1).gyroDps.length, 0, accuracy: 1e-12)
        XCTAssertEqual(script.state(at: 1 + 7.0 / 6 + 1e-6).accelG, .unitZ, "to rest")
        // Half-cycles along x build up and die down over a period each: 0.60, 1.05, 1, 1, 1, 1.05, 0.60 × 3 g.
        var peaks: [Double] = []
        for k in 0..<7 {
            let xs = stride(from: 0.0, to: 1.0 / 6, by: 0.0002).map { script.state(at: 1 + Double(k) / 6 + $0).accelG.x }
            peaks.append(xs.map(abs).max()! / 3)
            XCTAssertEqual(xs[xs.count / 2] > 0, k % 2 == 0, "half-cycle \(k + 1) points \(k % 2 == 0 ? "along" : "against") x")
        }
        for (measured, expected) in zip(peaks, [0.60, 1.05, 1, 1, 1, 1.05, 0.60]) {
            XCTAssertEqual(measured, expected, accuracy: 0.01, "\(peaks)")
        }
        // Tilted 90° forward (the front down), the same swing turns gravity's reaction by 18.5°,
        // and its rate agrees with the gyro: d(g_b)/dt = −ω × g_b for the gravity part.
        let down = TiltAngles(pitchDeg: 90, rollDeg: 0)
        let hanging = try MotionScript(start: down, segments: [
            .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(0, -1, 0), frequencyHz: 3, peakG: 3, swingDeg: 18.5,
                        seconds: 7.0 / 6)])
        let mid = hanging.state(at: 2.5 / 6).accelG - Vector3(3, 0, 0)
        XCTAssertEqual(mid.length, 1, accuracy: 1e-9)
        XCTAssertEqual(mid.y, -cos(swing), accuracy: 1e-9)
        XCTAssertThrowsError(try MotionScript(segments: [
            .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(3, 0, 0), frequencyHz: 3, peakG: 3, swingDeg: 18.5, seconds: 1)])) {
            XCTAssertEqual($0 as? MotionScriptError, MotionScriptError(.alongAxis(segment: 1, kind: "wristShake", key: "pivot")))
        }
        XCTAssertThrowsError(try MotionScript(segments: [
            .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(0, -1, 0), frequencyHz: 3, peakG: 3, swingDeg: 0, seconds: 1)]))
    }

    func testHandShakesLiftShakeMovesCirclesAndPushes() throws {
        let lift = MotionScript.builtIn(named: "lift-shake")!
        XCTAssertEqual(lift.durationSeconds!, 1 + 0.4 + 0.4 + 7.0 / 6 + 1, accuracy: 1e-9)
        XCTAssertEqual(lift.state(at: 1 + 0.1).accelG.z, 1.66, accuracy: 1e-9, "lifted with 0.66 g")
        XCTAssertEqual(lift.state(at: 1 + 0.3).accelG.z, 1 - 0.66, accuracy: 1e-9, "and stopped")
        XCTAssertGreaterThan(abs(lift.state(at: 1.6).gyroDps.x), 300, "turning at over 300 °/s")
        assertClose(lift.state(at: 1.8).accelG, Vector3(0, -1, 0), 1e-9, "turned 90°: the front points down")
        // Shaken at 3 Hz from 1.8 s, hanging below the wrist: at a full-size half-cycle's peak the
        // board is swung 18.5° aside, so gravity's reaction leans by as much.
        let atPeak = lift.state(at: 1.8 + 2.5 / 6).accelG
        XCTAssertEqual(abs(atPeak.x - 3), sin(18.5 * Double.pi / 180), accuracy: 1e-9)
        XCTAssertEqual(atPeak.y, -cos(18.5 * Double.pi / 180), accuracy: 1e-9)
        XCTAssertEqual(lift.state(at: 1.8 + 2.5 / 6).gyroDps.length, 0, accuracy: 1e-9, "turning back at the end of a swing")
        assertClose(lift.state(at: 1.8 + 7.0 / 6 + 0.01).accelG, Vector3(0, -1, 0), 1e-9, "still afterwards")
        XCTAssertEqual(try MotionScript.liftShake(turnDeg: 90), lift)
        let median = try MotionScript.liftShake(turnDeg: 48)
        assertClose(median.state(at: 1.8).accelG, TiltAngles(pitchDeg: 48, rollDeg: 0).gravity, 1e-9)
        XCTAssertEqual(median.durationSeconds!, lift.durationSeconds!, accuracy: 1e-12)

        for (name, hz, peak, seconds) in [("shake-slow", 2.5, 2.2, 3.9), ("shake-fast", 4.5, 4.0, 1 + 7 / 9.0 + 1.5)] {
            let script = MotionScript.builtIn(named: name)!
            XCTAssertEqual(script.durationSeconds!, seconds, accuracy: 1e-9, name)
            let xs = stride(from: 1.0, to: 1 + 3.5 / hz, by: 0.0005).map { script.state(at: $0).accelG.x }
            XCTAssertEqual(xs.map(abs).max()!, 1.05 * peak, accuracy: 0.01 * peak, name)
            var reversals = 0, previous = 0.0
            for x in xs where abs(x) > 0.2 * peak {
                if previous != 0 && (x > 0) != (previous > 0) { reversals += 1 }
                previous = x
            }
            XCTAssertEqual(reversals, 6, "\(name): 7 half-cycles")
            let first = xs.prefix(Int(0.5 / hz / 0.0005)).map(abs).max()!
            XCTAssertEqual(first, 0.60 * peak, accuracy: 0.01 * peak, "\(name): builds up")
            XCTAssertEqual(script.state(at: 1 + 1.5 / hz).gyroDps.z, -18.5 * 2 * hz * Double.pi, accuracy: 1e-6,
                           "\(name): the swing's rate, full size from the second cycle")
        }

        let move = MotionScript.builtIn(named: "move")!
        XCTAssertEqual(move.durationSeconds!, 3, accuracy: 1e-9)
        XCTAssertEqual(move.state(at: 0.5 + 0.125).accelG.x, 1.89, accuracy: 1e-9)
        XCTAssertEqual(move.state(at: 0.5 + 0.375).accelG.x, -1.89, accuracy: 1e-9)
        XCTAssertEqual(move.state(at: 0.5 + 0.625).accelG.x, 0.21 * 1.89, accuracy: 1e-9)
        XCTAssertEqual(move.state(at: 0.5 + 1.25).accelG.x, -0.21 * 1.89 / 4, accuracy: 1e-9, "its slow return")
        XCTAssertEqual(move.state(at: 0.5 + 1.76).accelG, .unitZ)

        let push = MotionScript.builtIn(named: "push")!
        XCTAssertEqual(push.state(at: 0.5 + 0.14).accelG.y, 1.3, accuracy: 1e-9, "toward the screen")
        XCTAssertEqual(push.state(at: 0.5 + 0.28 + 0.075).accelG.y, -1.3 * 0.28 / 0.15, accuracy: 1e-9, "a sharp stop")
        XCTAssertEqual(push.state(at: 0.5 + 0.43 + 0.075).accelG.y, 0.31 * 1.3 * 0.28 / 0.15, accuracy: 1e-9)
        XCTAssertEqual(push.durationSeconds!, 2.7, accuracy: 1e-9)
        XCTAssertEqual(push.state(at: 0.5 + 1.18 + 0.001).accelG, .unitZ)

        let circle = MotionScript.builtIn(named: "circle")!
        XCTAssertEqual(circle.durationSeconds!, 2.83, accuracy: 1e-9)
        assertClose(circle.state(at: 0.5 + 0.665).accelG, Vector3(1.83, 0, 1), 1e-9)
    }

    func testBuiltInsExistAndHaveExpectedLengths() throws {
        for name in MotionScript.builtInNames {
            XCTAssertNotNil(MotionScript.builtIn(named: name), name)
        }
        XCTAssertNil(MotionScript.builtIn(named: "nope"))
        XCTAssertNil(MotionScript.builtIn(named: "flat")!.durationSeconds)
        XCTAssertEqual(MotionScript.builtIn(named: "flat")!.state(at: 1e6).accelG, .unitZ)
        XCTAssertEqual(MotionScript.builtIn(named: "shake")!.durationSeconds, 3)
        XCTAssertEqual(MotionScript.builtIn(named: "shake")!.duration, .seconds(3), "the public span is a Duration")
        XCTAssertEqual(MotionScript.Segment.move(axis: .unitZ, peakG: 1, accel: .milliseconds(250), stop: .milliseconds(250), rebound: 0, for: .seconds(2)),
                       .move(axis: .unitZ, peakG: 1, accelSeconds: 0.25, stopSeconds: 0.25, rebound: 0, seconds: 2))
        XCTAssertEqual(MotionScript.Segment.hold(TiltAngles(pitchDeg: 0, rollDeg: 0), for: .seconds(1.5)).length, .milliseconds(1500))
        XCTAssertNil(MotionScript.builtIn(named: "flat")!.duration)
        XCTAssertEqual(MotionScript.builtIn(named: "demo")!.durationSeconds!, 12.5, accuracy: 1e-9)
        XCTAssertEqual(MotionScript.builtIn(named: "tilt-left")!.finalPose, TiltAngles(pitchDeg: 0, rollDeg: -30))
        XCTAssertEqual(MotionScript.builtIn(named: "tilt-forward")!.finalPose, TiltAngles(pitchDeg: 30, rollDeg: 0))
        let slow = MotionScript.builtIn(named: "slow-tilt")!
        XCTAssertEqual(TiltAngles(gravity: slow.state(at: 4.6).accelG).pitchDeg, 90, accuracy: 1e-6)
    }

    func testSixFacesVisitsEveryFaceStill() throws {
        let script = MotionScript.builtIn(named: "six-faces")!
        XCTAssertEqual(script.durationSeconds, 28)
        let expected = [Vector3(0, 0, 1), Vector3(0, 0, -1), Vector3(1, 0, 0), Vector3(-1, 0, 0),
                        Vector3(0, 1, 0), Vector3(0, -1, 0)]
        for (i, face) in expected.enumerated() {
            for t in stride(from: Double(i) * 5 + 0.01, to: Double(i) * 5 + 3, by: 0.25) {
                assertClose(script.state(at: t).accelG, face, 1e-9, "face \(i) at \(t)")
                XCTAssertEqual(script.state(at: t).gyroDps, .zero)
            }
        }
    }

    func testJSONRoundTripAndDocumentedForm() throws {
        let json = """
        {"segments":[{"hold":{"pitchDeg":0,"rollDeg":0,"seconds":1}},
                     {"rotate":{"pitchDeg":30,"rollDeg":-10,"seconds":1.5}},
                     {"shake":{"axis":[1,0,0],"frequencyHz":4,"peakG":2,"seconds":1}},
                     {"tap":{"axis":[0,0,1],"peakG":3,"spikeSeconds":0.015,"seconds":0.5}},
                     {"putDown":{"impactG":1.5,"seconds":1}},
                     {"walk":{"bounceG":0.3,"stepHz":2,"seconds":5}},
                     {"hold":{"seconds":2}},
                     {"move":{"axis":[0,1,0],"peakG":1.3,"accelSeconds":0.28,"stopSeconds":0.15,"rebound":0.31,"seconds":1.2}},
                     {"move":{"axis":[1,0,0],"peakG":2,"seconds":0.5}},
                     {"circle":{"axis":[1,0,0],"across":[0,1,0],"turns":2,"peakG":1.8,"aspect":0.6,"seconds":1.5}},
                     {"circle":{"peakG":1.83,"seconds":1.33}},
                     {"wristShake":{"axis":[1,0,0],"frequencyHz":3,"peakG":3,"seconds":1}}]}
        """
        let script = try MotionScript(jsonData: Data(json.utf8))
        XCTAssertEqual(script.segments.count, 12)
        XCTAssertEqual(script.segments[1], .rotate(to: TiltAngles(pitchDeg: 30, rollDeg: -10), seconds: 1.5))
        XCTAssertEqual(script.segments[6], .hold(TiltAngles(pitchDeg: 30, rollDeg: -10), seconds: 2),
                       "hold without angles keeps the pose")
        XCTAssertEqual(script.segments[7], .move(axis: Vector3(0, 1, 0), peakG: 1.3, accelSeconds: 0.28, stopSeconds: 0.15,
                                                 rebound: 0.31, seconds: 1.2))
        XCTAssertEqual(script.segments[8], .move(axis: Vector3(1, 0, 0), peakG: 2, accelSeconds: 0.25, stopSeconds: 0.25,
                                                 rebound: 0, seconds: 0.5), "a move's defaults")
        XCTAssertEqual(script.segments[9], .circle(axis: Vector3(1, 0, 0), across: Vector3(0, 1, 0), turns: 2, peakG: 1.8,
                                                   aspect: 0.6, seconds: 1.5))
        XCTAssertEqual(script.segments[10], .circle(axis: Vector3(1, 0, 0), across: Vector3(0, 0, 1), turns: 1, peakG: 1.83,
                                                    aspect: 1, seconds: 1.33), "a circle's defaults: one turn facing forward")
        XCTAssertEqual(script.segments[11], .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(0, -1, 0), frequencyHz: 3,
                                                        peakG: 3, swingDeg: 18.5, seconds: 1), "a wrist shake's defaults")
        XCTAssertEqual(script.durationSeconds!, 12 + 1.2 + 0.5 + 1.5 + 1.33 + 1, accuracy: 1e-12)
        let again = try MotionScript(jsonData: try script.jsonData())
        XCTAssertEqual(again, script)
        for name in MotionScript.builtInNames {
            let s = MotionScript.builtIn(named: name)!
            XCTAssertEqual(try MotionScript(jsonData: try s.jsonData()), s, name)
        }
    }

    func testBadJSONGivesClearErrors() {
        func problem(_ json: String) -> MotionScriptError.Problem? {
            do {
                _ = try MotionScript(jsonData: Data(json.utf8))
                return nil
            } catch {
                XCTAssertEqual((error as? MotionScriptError)?.inJSON, true, "\(error)")
                return (error as? MotionScriptError)?.problem
            }
        }
        XCTAssertEqual(problem(#"{"segments":[{"spin":{"seconds":1}}]}"#),
                       .segmentKey(segment: 1, kinds: ["hold", "rotate", "shake", "tap", "putDown", "walk", "move", "circle", "wristShake"]))
        XCTAssertEqual(problem(#"{"segments":[{"shake":{"axis":[1,0,0],"peakG":2,"seconds":1}}]}"#),
                       .missingKey(key: "frequencyHz", path: ".segments[0].shake"))
        XCTAssertEqual(problem(#"{"segments":[{"hold":{"seconds":1}},{"hold":{"seconds":-1}}]}"#),
                       .outOfRange(segment: 2, kind: nil, key: "seconds", value: -1, rule: .finiteNonNegative))
        XCTAssertEqual(problem(#"{"segments":[{"shake":{"axis":[0,0,0],"frequencyHz":4,"peakG":2,"seconds":1}}]}"#),
                       .zeroVector(segment: 1, kind: "shake", key: "axis"))
        guard case let .invalidJSON(path, _, _)? = problem("{not json") else { return XCTFail("not invalid JSON") }
        XCTAssertEqual(path, "")
        XCTAssertEqual(problem("{}"), .missingKey(key: "segments", path: ""))
        XCTAssertEqual(problem(#"{"segments":[{"move":{"axis":[1,0,0],"seconds":1}}]}"#), .missingKey(key: "peakG", path: ".segments[0].move"))
        XCTAssertEqual(problem(#"{"segments":[{"move":{"axis":[1,0,0],"peakG":2,"stopSeconds":0,"seconds":1}}]}"#),
                       .moveRamps(segment: 1, givenAccel: 0.25, givenStop: 0))
        XCTAssertEqual(problem(#"{"segments":[{"circle":{"across":[1,0,0],"peakG":2,"seconds":1}}]}"#),
                       .alongAxis(segment: 1, kind: "circle", key: "across"))
    }
}

final class TraceMotionTests: XCTestCase {
    func testParsesHeaderCommentsAndInterpolates() throws {
        let csv = """
        t,ax,ay,az,gx,gy,gz
        # recorded on the bench
        0.0, 0, 0, 1, 0, 0, 0
        0.5, 1, 0, 0, 90, 0, 0   # turned
        \r
        1.0, 1, 0, 0, 0, 0, 0
        """
        let trace = try TraceMotion(csv: csv)
        XCTAssertEqual(trace.durationSeconds, 1)
        XCTAssertEqual(trace.state(at: -1).accelG, .unitZ)
        XCTAssertEqual(trace.state(at: 0.25).accelG, Vector3(0.5, 0, 0.5))
        XCTAssertEqual(trace.state(at: 0.25).gyroDps, Vector3(45, 0, 0))
        XCTAssertEqual(trace.state(at: 0.75).gyroDps, Vector3(45, 0, 0))
        XCTAssertEqual(trace.state(at: 9).accelG, Vector3(1, 0, 0), "last value held")
    }

    func testAccelOnlyColumns() throws {
        let trace = try TraceMotion(csv: "0,0,0,1\n2,0,0,-1\n")
        XCTAssertEqual(trace.state(at: 1).accelG, .zero)
        XCTAssertEqual(trace.state(at: 1).gyroDps, .zero)
    }

    func testErrorsNameTheLine() {
        func problem(_ csv: String) -> MotionScriptError.Problem? {
            do { _ = try TraceMotion(csv: csv); return nil } catch { return (error as? MotionScriptError)?.problem }
        }
        XCTAssertEqual(problem("t,ax,ay,az\n0,0,0,1\n0.1,0,x,1\n"), .traceNotANumber(line: 3, field: 3, text: "x"))
        XCTAssertEqual(problem("0,0,0,1\n0.1,0,0\n"), .traceFieldCount(line: 2, found: 3))
        XCTAssertEqual(problem("0,0,0,1\n1,0,0,1\n0.5,0,0,1"), .traceTimeBackwards(line: 3, time: 0.5, previous: 1))
        XCTAssertEqual(problem("# nothing\n\n"), .traceEmpty)
        XCTAssertEqual(problem("0,0,0,1\nt,ax,ay,az\n"), .traceNotANumber(line: 2, field: 1, text: "t"), "a header only comes first")
        let long = String(repeating: "9x", count: 50)
        XCTAssertEqual(problem("0,\(long),0,1\n"), .traceNotANumber(line: 1, field: 2, text: String(long.prefix(79)) + "…"))
    }

    func testTraceLinesEndInLFOrCRLF() throws {
        let trace = try TraceMotion(csv: "t,ax,ay,az\r\n0,0,0,1\r\n1,0.5,0,1\r\n")
        XCTAssertEqual(trace.times, [0, 1])
        XCTAssertEqual(trace.accel[1], Vector3(0.5, 0, 1))
        // Line numbers count lines, whatever ends them.
        XCTAssertThrowsError(try TraceMotion(csv: "0,0,0,1\r\n1,0,0,1\r\n2,x,0,1\r\n")) { error in
            XCTAssertEqual((error as? MotionScriptError)?.problem, .traceNotANumber(line: 3, field: 2, text: "x"))
        }
    }

    func testALongTraceLoadStopsWhenAsked() throws {
        let csv = (0..<50_000).map { "\(Double($0) / 100),0,0,1" }.joined(separator: "\n")
        var asked = 0
        XCTAssertThrowsError(try TraceMotion(csv: csv, shouldStop: { asked += 1; return asked == 2 })) { error in
            XCTAssertTrue(error is TraceLoadStopped, "\(error)")
        }
        // Asked every 10,000 lines: stopped at the second question, line 20,000 of 50,000.
        XCTAssertEqual(asked, 2)
        XCTAssertEqual(try TraceMotion(csv: csv).times.count, 50_000)
    }
}
