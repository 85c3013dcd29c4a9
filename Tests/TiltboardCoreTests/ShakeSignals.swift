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
