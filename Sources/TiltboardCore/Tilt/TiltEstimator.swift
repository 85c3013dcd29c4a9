#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Estimates the direction of gravity in the board frame from accelerometer (and gyro) samples.
///
/// All filter constants are time constants in seconds and the per-step weights are derived from
/// each sample's `dt`, so the response does not change with the sample rate: exactly for the
/// low-pass (α from e^(−dt/τ)), to first order in dt/τ for the complementary blend.
public struct TiltEstimator: Sendable {
    /// How samples are combined.
    public enum Mode: Sendable, Equatable, Codable {
        /// Accelerometer only: exponential low-pass of the gravity vector, α = 1 − e^(−dt/τ).
        case lowPass(timeConstant: Double = 0.1)
        /// Gyro propagation (dg/dt = −ω × g) corrected toward the accelerometer with
        /// α = τ/(τ + dt). Without gyro data it degrades to a low-pass with the same τ.
        case complementary(timeConstant: Double = 0.5)
    }

    /// The filter in use.
    public let mode: Mode
    /// In complementary mode, the accelerometer's weight falls linearly to zero as | |a| − 1 g |
    /// grows to this many g, so a shake does not drag the estimate.
    public var accelRejectionG: Double = 0.3
    @usableFromInline var filtered: Vector3 = .unitZ
    @usableFromInline var initialised = false

    /// A filter that initialises from its first sample.
    public init(mode: Mode) { self.mode = mode }

    /// The current unit gravity reaction in the board frame (+Z when flat, face up).
    @inlinable public var gravity: Vector3 {
        let n = filtered.normalized
        return n == .zero ? .unitZ : n
    }

    /// Pitch and roll of the current estimate.
    @inlinable public var angles: TiltAngles { TiltAngles(gravity: gravity) }

    /// Forgets the state; the next sample initialises directly.
    public mutating func reset() { filtered = .unitZ; initialised = false }

    /// Folds in one sample (accel in g, gyro in °/s, `dt` seconds since the previous sample) and
    /// returns the unit gravity estimate. A non-positive or non-finite `dt` only re-reads.
    @inlinable @discardableResult
    public mutating func update(accel: Vector3, gyroDps: Vector3?, dt: Double) -> Vector3 {
        guard accel.x.isFinite, accel.y.isFinite, accel.z.isFinite else { return gravity }
        if !initialised {
            if accel.lengthSquared > 1e-12 { filtered = accel; initialised = true }
            return gravity
        }
        guard dt > 0, dt.isFinite else { return gravity }
        switch mode {
        case let .lowPass(tau):
            let alpha = tau > 0 ? 1 - exp(-dt / tau) : 1
            filtered += (accel - filtered) * alpha
        case let .complementary(tau):
            var g = gravity
            if let w = gyroDps {
                let omega = Vector3(radians(w.x), radians(w.y), radians(w.z))
                let rate = omega.length
                if rate > 0 {
                    // Exact solution of dg/dt = −ω × g for constant ω: rotate by −|ω|·dt about ω.
                    g = Quaternion(axis: omega, angle: -rate * dt).rotate(g)
                }
            }
            let a = accel.length
            var weight = tau > 0 ? dt / (tau + dt) : 1
            if accelRejectionG > 0 {
                weight *= Swift.max(0, 1 - Swift.abs(a - 1) / accelRejectionG)
            }
            if a > 1e-9 { g = g * (1 - weight) + (accel / a) * weight }
            filtered = g.normalized == .zero ? filtered : g.normalized
        }
        return gravity
    }
}
