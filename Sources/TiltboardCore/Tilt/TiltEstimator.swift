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
    /// `filtered` normalised, kept up to date by `update` so reading `gravity` costs nothing.
    @usableFromInline var unitGravity: Vector3 = .unitZ

    /// A filter that initialises from its first sample.
    public init(mode: Mode) { self.mode = mode }

    /// The current unit gravity reaction in the board frame (+Z when flat, face up).
    @inlinable public var gravity: Vector3 { unitGravity }

    /// Pitch and roll of the current estimate.
    @inlinable public var angles: TiltAngles { TiltAngles(gravity: gravity) }

    /// Forgets the state; the next sample initialises directly.
    public mutating func reset() { filtered = .unitZ; unitGravity = .unitZ; initialised = false }

    @inlinable mutating func setFiltered(_ v: Vector3) {
        filtered = v
        let n = v.normalized
        unitGravity = n == .zero ? .unitZ : n
    }

    /// Folds in one sample (accel in g, gyro in °/s, `dt` seconds since the previous sample) and
    /// returns the unit gravity estimate. A non-positive or non-finite `dt` only re-reads.
    @inlinable @discardableResult
    public mutating func update(accel: Vector3, gyroDps: Vector3?, dt: Double) -> Vector3 {
        guard accel.x.isFinite, accel.y.isFinite, accel.z.isFinite else { return gravity }
        if !initialised {
            if accel.lengthSquared > 1e-12 { setFiltered(accel); initialised = true }
            return gravity
        }
        guard dt > 0, dt.isFinite else { return gravity }
        switch mode {
        case let .lowPass(tau):
            let alpha = tau > 0 ? 1 - exp(-dt / tau) : 1
            setFiltered(filtered + (accel - filtered) * alpha)
        case let .complementary(tau):
            var g = gravity
            if let w = gyroDps {
                let omega = Vector3(radians(w.x), radians(w.y), radians(w.z))
                let rate = omega.length
                if rate > 0 {
                    // Exact solution of dg/dt = −ω × g for constant ω: rotate by −|ω|·dt about ω.
                    // The quaternion is built here from ω and its known length (no second
                    // normalisation, no call out of line): this runs for every sample.
                    let half = -0.5 * rate * dt
                    let (sinHalf, cosHalf) = Self.sinCos(half)
                    let s = sinHalf / rate
                    g = Quaternion(w: cosHalf, x: omega.x * s, y: omega.y * s, z: omega.z * s).rotate(g)
                }
            }
            let a = accel.length
            var weight = tau > 0 ? dt / (tau + dt) : 1
            if accelRejectionG > 0 {
                weight *= Swift.max(0, 1 - Swift.abs(a - 1) / accelRejectionG)
            }
            if a > 1e-9 { g = g * (1 - weight) + (accel / a) * weight }
            let n = g.normalized
            if n != .zero { setFiltered(n) }
        }
        return gravity
    }

    /// sin and cos of `x`; per-sample rotation angles are tiny (|ω|·dt ≪ 0.05 rad), where the
    /// Taylor series is exact to 1e-13 and several times cheaper than the libm calls.
    @inlinable static func sinCos(_ x: Double) -> (Double, Double) {
        guard Swift.abs(x) < 0.05 else { return (sin(x), cos(x)) }
        let x2 = x * x
        return (x * (1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42))),
                1 - x2 / 2 * (1 - x2 / 12 * (1 - x2 / 30)))
    }
}
