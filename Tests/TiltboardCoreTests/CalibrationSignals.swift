import Foundation
import TiltboardCore

/// Deterministic generator (SplitMix64) with Gaussian samples, so synthetic traces repeat exactly
/// (shared by the calibration and shake tests).
struct NoiseSource {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func nextUInt64() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1).
    mutating func uniform() -> Double { (Double(nextUInt64() >> 11) + 0.5) / 9_007_199_254_740_992 }

    /// Normal with mean 0 and standard deviation `sigma` (Box–Muller).
    mutating func gaussian(_ sigma: Double) -> Double {
        sigma * (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }

    mutating func noise(_ sigma: Double) -> Vector3 { Vector3(gaussian(sigma), gaussian(sigma), gaussian(sigma)) }
}

/// What an uncalibrated sensor reports for a true gravity reaction: scale ⊙ true + offset.
func rawReading(true g: Vector3, scale: Vector3, offset: Vector3) -> Vector3 { g.scaled(by: scale) + offset }

/// The unit gravity reaction for a pitch/roll pose.
func gravity(pitch: Double, roll: Double = 0) -> Vector3 { TiltAngles(pitchDeg: pitch, rollDeg: roll).gravity }

/// Angle between two directions, in degrees.
func angleDeg(_ a: Vector3, _ b: Vector3) -> Double {
    atan2(a.normalized.cross(b.normalized).length, a.normalized.dot(b.normalized)) * 180 / .pi
}
