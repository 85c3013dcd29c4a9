#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The controller's state after one update. Positions in area units (−1…1), velocities in area
/// units per second.
public struct ControlOutput: Sendable, Equatable {
    /// Position across, −1 (left) … 1 (right).
    public var x: Double
    /// Position along, −1 (near) … 1 (far, forward).
    public var y: Double
    /// Velocity across, area units per second.
    public var vx: Double
    /// Velocity along, area units per second.
    public var vy: Double
    /// Direction the board slopes down (where a ball would roll), degrees: 0 right, 90 forward.
    public var headingDeg: Double
    /// True when the marker is at (or bounced off) the left/right edge this update.
    public var atEdgeX: Bool
    /// True when the marker is at (or bounced off) the back/front edge this update.
    public var atEdgeY: Bool

    /// Creates an output from its parts.
    @inlinable public init(x: Double, y: Double, vx: Double, vy: Double, headingDeg: Double,
                           atEdgeX: Bool, atEdgeY: Bool) {
        self.x = x; self.y = y; self.vx = vx; self.vy = vy
        self.headingDeg = headingDeg; self.atEdgeX = atEdgeX; self.atEdgeY = atEdgeY
    }
}

/// Turns neutral-rotated gravity into marker motion in the −1…1 area.
///
/// Tilt input: x = −g.x (tilting right moves right), y = −g.y (tilting forward moves +y). Every
/// model is integrated exactly for tilt held constant over a step, so 50, 100 or 500 Hz give the
/// same trajectory at common times.
public struct TiltController: Sendable {
    /// The settings in use; changing them keeps the marker's state.
    public var settings: TiltControllerSettings
    /// Marker position in area units.
    public private(set) var x = 0.0, y = 0.0
    /// Marker velocity in area units per second.
    public private(set) var vx = 0.0, vy = 0.0
    // k and exp(−k·dt) of the damped model for the last deceleration and step: at a fixed rate
    // every step is the same, so the per-sample path skips a log and an exp.
    private var decay = (deceleration: Double.nan, dt: Double.nan, k: 0.0, e: 0.0)

    /// A controller with the marker at rest in the centre.
    public init(settings: TiltControllerSettings = TiltControllerSettings()) { self.settings = settings }

    /// Puts the marker back at rest in the centre.
    public mutating func reset() { x = 0; y = 0; vx = 0; vy = 0 }

    /// The tilt input (g) after dead zone and response curve, for a unit gravity vector.
    public func shapedTilt(gravity: Vector3) -> (x: Double, y: Double) {
        shapedTilt(unit: gravity.normalized)
    }

    private func shapedTilt(unit n: Vector3) -> (x: Double, y: Double) {
        let tx = -n.x, ty = -n.y
        let m = (tx * tx + ty * ty).squareRoot()
        guard m > 0 else { return (0, 0) }
        let dz = settings.deadZoneDeg > 0 ? sin(radians(Swift.min(settings.deadZoneDeg, 89))) : 0
        guard m > dz else { return (0, 0) }
        var shaped = Swift.min(1, (m - dz) / (1 - dz))
        if settings.responseExponent != 1, settings.responseExponent > 0 {
            shaped = pow(shaped, settings.responseExponent)
        }
        let f = shaped / m
        return (tx * f, ty * f)
    }

    /// Advances by `dt` seconds with `gravity` (unit, neutral-rotated) held over the step.
    public mutating func update(gravity: Vector3, dt: Double) -> ControlOutput {
        let n = gravity.normalized
        let heading = degrees(atan2(-n.y, -n.x))
        let u = shapedTilt(unit: n)
        var edgeX = false, edgeY = false
        if dt > 0, dt.isFinite {
            switch settings.model {
            case let .damped(deceleration, sensitivity, maxVelocity):
                // Seed per frame T = 1/60: v ← d·v + S·u (px/frame). Continuous form dv/dt = −k·v + G·u
                // with k = −ln(d)/T; stepping it by T gives d·v + (G/k)(1 − d)·u, so G = S·k/(1 − d)
                // and the steady state S·u/(1 − d) is unchanged. px/frame → units/s: × R/P.
                let rate = TiltControllerSettings.referenceFrameRate
                let toUnits = rate / settings.pixelsPerUnit
                let d = Swift.min(1, Swift.max(1e-12, deceleration))
                let vmax = Swift.abs(maxVelocity) * toUnits
                if d < 1 {
                    // Steps within a part in 10⁹ of each other share the factor (timestamps carry
                    // rounding noise); the difference in e is far below the marker's resolution.
                    if decay.deceleration != d || Swift.abs(decay.dt - dt) > dt * 1e-9 {
                        let k = -log(d) * rate
                        decay = (d, dt, k, exp(-k * dt))
                    }
                    let k = decay.k, e = decay.e
                    let gain = sensitivity * toUnits / (1 - d)
                    (vx, x) = Self.decayStep(v: vx, p: x, target: gain * u.x, k: k, e: e, vmax: vmax, dt: dt)
                    (vy, y) = Self.decayStep(v: vy, p: y, target: gain * u.y, k: k, e: e, vmax: vmax, dt: dt)
                } else {
                    // No deceleration: v grows by S per frame per g, i.e. S·R²/P units/s² per g.
                    let a = sensitivity * toUnits * rate
                    (vx, x) = Self.accelStep(v: vx, p: x, a: a * u.x, vmax: vmax, dt: dt)
                    (vy, y) = Self.accelStep(v: vy, p: y, a: a * u.y, vmax: vmax, dt: dt)
                }
            case let .integrating(gain, maxSpeed):
                let vmax = maxSpeed.map { Swift.abs($0) } ?? .infinity
                (vx, x) = Self.accelStep(v: vx, p: x, a: gain * u.x, vmax: vmax, dt: dt)
                (vy, y) = Self.accelStep(v: vy, p: y, a: gain * u.y, vmax: vmax, dt: dt)
            }
            edgeX = applyBoundary(&x, &vx)
            edgeY = applyBoundary(&y, &vy)
        } else {
            edgeX = Swift.abs(x) >= 1
            edgeY = Swift.abs(y) >= 1
        }
        return ControlOutput(x: x, y: y, vx: vx, vy: vy, headingDeg: heading, atEdgeX: edgeX, atEdgeY: edgeY)
    }

    /// Exact step of dv/dt = −k(v − target) with |v| ≤ vmax; returns the new velocity and position.
    @inline(__always)
    static func decayStep(v: Double, p: Double, target: Double, k: Double, e: Double, vmax: Double,
                          dt: Double) -> (Double, Double) {
        let v1 = target + (v - target) * e
        if Swift.abs(v1) <= vmax {
            return (v1, p + target * dt + (v - target) * (1 - e) / k)
        }
        let lim = v1 > 0 ? vmax : -vmax
        if (target - lim) * lim > 0 {
            // The target lies beyond the limit and v moves monotonically toward it, so v either
            // started on the limit or crossed it once at tHit and stayed there.
            if (v - lim) * lim >= 0 { return (lim, p + lim * dt) }
            let tHit = log((v - target) / (lim - target)) / k
            let pHit = target * tHit + (v - target) * (1 - exp(-k * tHit)) / k
            return (lim, p + pHit + lim * (dt - tHit))
        }
        // Started beyond a limit that was lowered meanwhile: cap the velocity, keep the path.
        return (lim, p + target * dt + (v - target) * (1 - e) / k)
    }

    /// Exact step of dv/dt = a with |v| ≤ vmax; returns the new velocity and position.
    @inline(__always)
    static func accelStep(v: Double, p: Double, a: Double, vmax: Double, dt: Double) -> (Double, Double) {
        let v1 = v + a * dt
        if Swift.abs(v1) <= vmax || a == 0 {
            return (v1, p + v * dt + 0.5 * a * dt * dt)
        }
        let lim = a > 0 ? vmax : -vmax
        let tHit = Swift.max(0, (lim - v) / a)
        guard tHit < dt else { return (v1, p + v * dt + 0.5 * a * dt * dt) }
        return (lim, p + v * tHit + 0.5 * a * tHit * tHit + lim * (dt - tHit))
    }

    /// Keeps one axis inside −1…1; true when the marker touched the edge.
    @inline(__always)
    private func applyBoundary(_ p: inout Double, _ v: inout Double) -> Bool {
        switch settings.boundary {
        case .edgeStop:
            if p >= 1 {
                p = 1
                if v > 0 { v = 0 }
                return true
            }
            if p <= -1 {
                p = -1
                if v < 0 { v = 0 }
                return true
            }
            return false
        case let .bounce(restitution):
            let e = Swift.min(1, Swift.max(0, restitution))
            var touched = false
            // A fast marker can cross the area more than once in a long step; a few reflections suffice.
            var reflections = 0
            while (p > 1 || p < -1) && reflections < 8 {
                let edge = p > 1 ? 1.0 : -1.0
                p = edge - (p - edge) * e
                v = -v * e
                touched = true
                reflections += 1
            }
            if p > 1 || p < -1 { p = Swift.min(1, Swift.max(-1, p)); v = 0 }
            return touched || Swift.abs(p) >= 1
        }
    }
}
