import Foundation
import TiltboardCore

/// Synthetic accelerometer traces in g, gravity reaction included, sampled at `rateHz`.
struct Trace {
    var rateHz: Double
    var duration: Double
    var noiseG = 0.004
    var seed: UInt64 = 1
    /// Sample time offset so shake onsets fall between samples, as they do in reality.
    var phase = 0.0037
    var signal: (Double) -> Vector3

    /// Runs `detector` over the trace and returns every event.
    func events(_ detector: inout ShakeDetector, gravity: ((Double) -> Vector3)? = nil) -> [ShakeEvent] {
        var rng = NoiseSource(seed: seed)
        var out: [ShakeEvent] = []
        let count = Int(duration * rateHz)
        for i in 0..<count {
            let t = phase + Double(i) / rateHz
            let noise = rng.noise(noiseG)
            if let e = detector.update(t: t, accel: signal(t) + noise, gravity: gravity?(t)) {
                out.append(e)
            }
        }
        return out
    }
}

enum Motion {
    static let flat = Vector3(0, 0, 1)

    /// Sinusoidal shake starting at full amplitude at `t0`: a = A·sin(2πf(t − t0)) along `axis`.
    static func shake(t: Double, t0: Double, duration: Double, frequency f: Double, amplitude a: Double,
                      axis: Vector3) -> Vector3 {
        guard t >= t0, t < t0 + duration else { return .zero }
        return axis.normalized * (a * sin(2 * .pi * f * (t - t0)))
    }

    /// Gravity reaction while tilting forward from 0 to `maxDeg` and back, `rampSeconds` each
    /// way, starting at `t0`; `linear` ramps at constant rate, otherwise a smooth cosine profile.
    static func tilt(t: Double, t0: Double, maxDeg: Double, rampSeconds: Double, linear: Bool,
                     aboutRoll: Bool = false) -> Vector3 {
        let u: Double
        let r = t - t0
        if r <= 0 { u = 0 } else if r < rampSeconds { u = r / rampSeconds }
        else if r < 2 * rampSeconds { u = 2 - r / rampSeconds } else { u = 0 }
        let shaped = linear ? u : (1 - cos(.pi * u)) / 2
        let angle = maxDeg * shaped
        return aboutRoll ? TiltAngles(pitchDeg: 0, rollDeg: angle).gravity
                         : TiltAngles(pitchDeg: angle, rollDeg: 0).gravity
    }

    /// A half-sine pulse of `peak` g lasting `ms` starting at `t0` along `axis`.
    static func pulse(t: Double, t0: Double, ms: Double, peak: Double, axis: Vector3) -> Vector3 {
        let r = t - t0, d = ms / 1000
        guard r >= 0, r < d else { return .zero }
        return axis.normalized * (peak * sin(.pi * r / d))
    }
}

/// Single gestures and everyday motion that are not shakes (linear acceleration in g, add gravity).
extension Motion {
    /// A single brisk move along `axis`: accelerate, then brake to a stop (one period of a sine,
    /// `seconds` long, peak `peak`), optionally with a rebound of `overshoot` × `peak` after it.
    static func briskMove(t: Double, t0: Double, seconds: Double, peak: Double, axis: Vector3,
                          overshoot: Double = 0) -> Vector3 {
        let r = t - t0
        if r >= 0 && r < seconds { return axis.normalized * (peak * sin(2 * .pi * r / seconds)) }
        if overshoot > 0 && r >= seconds && r < 1.5 * seconds {
            return axis.normalized * (overshoot * peak * sin(2 * .pi * (r - seconds) / seconds))
        }
        return .zero
    }

    /// A push: a short hard shove (`seconds`/3 at `peak`) then a longer, gentler stop of the same
    /// impulse.
    static func push(t: Double, t0: Double, seconds: Double, peak: Double, axis: Vector3) -> Vector3 {
        let shove = seconds / 3
        return pulse(t: t, t0: t0, ms: shove * 1000, peak: peak, axis: axis)
            + pulse(t: t, t0: t0 + shove, ms: (seconds - shove) * 1000, peak: -peak / 2, axis: axis)
    }

    /// Tracing `turns` circles in the x–y plane, `seconds` per turn: the centripetal acceleration
    /// (`peak` g) turns with the hand instead of reversing.
    static func circle(t: Double, t0: Double, seconds: Double, turns: Double, peak: Double) -> Vector3 {
        let r = t - t0
        guard r >= 0, r < seconds * turns else { return .zero }
        let w = 2 * Double.pi / seconds
        let ramp = Swift.min(1, r / 0.05)
        let size = peak * ramp
        return Vector3(size * cos(w * r), size * sin(w * r), 0)
    }

    /// Picking the board up off a table: lifted 20 cm (up, then braking, `peak` g) while tilting
    /// towards the player by 30°. Returns the whole sample (gravity included).
    static func pickUp(t: Double, t0: Double, seconds: Double, peak: Double) -> Vector3 {
        let r = t - t0
        let u = Swift.min(Swift.max(r / seconds, 0), 1)
        let g = TiltAngles(pitchDeg: 30 * (1 - cos(.pi * u)) / 2, rollDeg: 0).gravity
        let lift = r >= 0 && r < seconds ? Vector3(0, 0, peak * sin(2 * .pi * r / seconds)) : .zero
        return g + lift
    }

    /// Going down stairs with the board at the waist: at `stepHz` a heel strike of `impact` g
    /// upwards for 60 ms, a near free-fall dip of `dip` g for 90 ms, the body swaying forward.
    static func stairs(t: Double, stepHz: Double, impact: Double, dip: Double) -> Vector3 {
        let period = 1 / stepHz
        let r = t - (t / period).rounded(.down) * period
        let strike = pulse(t: r, t0: 0, ms: 60, peak: impact, axis: Vector3(0, 0, 1))
        let fall = pulse(t: r, t0: 0.06, ms: 90, peak: -dip, axis: Vector3(0, 0, 1))
        let sway = Vector3(0.3 * sin(2 * .pi * stepHz * t), 0.15 * sin(.pi * stepHz * t), 0)
        return strike + fall + sway
    }
}
