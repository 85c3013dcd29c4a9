/// The gyro bias the tilt estimator still sees, tracked by a three-state Kalman filter after VQF
/// (D. Laidig and T. Seel, Information Fusion 91, 2023, §3.3):
/// - at rest the measurement is the rate's short low-pass itself (the true rate is nil);
/// - in motion it is the rate at which the inclination correction has to turn the estimate (a
///   bias turns the gyro's orientation away from the accelerometer's at exactly that rate), seen
///   through the same 3 s low-pass as the accelerometer, so the horizontal components are
///   observable and the vertical one is barely moved;
/// - the state forgets (its variance grows back towards the initial one over 100 s), so a bias
///   that changes with the die's temperature is followed.
///
/// It runs on rates from which the hold-still stage has already removed the bias it learnt at
/// rest within the data sheet's drift, so what is left is small; `clipDps` bounds it (and each
/// measurement) so a wrong correction cannot run away. Figures are VQF's defaults; the
/// covariances are kept in (0.01 °/s)², as there, so the gains come out the same.
struct GyroBiasFilter: Sendable {
    struct Settings: Sendable, Equatable {
        /// Initial standard deviation of the bias, °/s.
        var sigmaInitDps = 2.0
        /// The variance grows from 0 to (0.1 °/s)² over this long, s.
        var forgettingSeconds = 100.0
        /// Standard deviation of a motion measurement, °/s.
        var sigmaMotionDps = 0.1
        /// The vertical component's motion measurement counts this much less (it is not
        /// observable from the inclination).
        var verticalFactor = 1e-4
        /// Standard deviation of a rest measurement, °/s.
        var sigmaRestDps = 0.03
        /// Bound on the bias and on each measurement's disagreement with it, °/s.
        var clipDps = 4.0
    }

    var settings = Settings()
    /// The estimate, °/s, in the board frame.
    private(set) var dps = Vector3.zero
    private var p = Matrix3.identity
    private var rotationRows = (LowPass2(), LowPass2(), LowPass2())
    private var rotatedBias = LowPass2()
    private var started = false

    /// Forgets the estimate: the rates handed in carry no bias any more (the hold-still stage
    /// measured it at rest, which is more exact than any estimate made here).
    mutating func clear() { dps = .zero }

    /// One accelerometer step. `orientation` takes the board frame to earth (vertical +Z),
    /// `uncorrected` is the filtered acceleration seen from earth before this step's
    /// correction (unit length), `restRate` the rate's short low-pass when the board rests.
    mutating func update(orientation: Quaternion, uncorrected a: Vector3, restRate: Vector3?,
                         timeConstant tau: Double, dt: Double) {
        let scale = 100.0 * 100.0
        let p0 = settings.sigmaInitDps * settings.sigmaInitDps * scale
        let v = 0.1 * 0.1 * scale * dt / settings.forgettingSeconds

        let r = orientation.matrix
        let rb = Vector3(r.r0.dot(dps), r.r1.dot(dps), 0)
        if !started {
            started = true
            p = Matrix3.identity * p0
            rotationRows.0.settle(at: r.r0, timeConstant: tau, dt: dt)
            rotationRows.1.settle(at: r.r1, timeConstant: tau, dt: dt)
            rotationRows.2.settle(at: r.r2, timeConstant: tau, dt: dt)
            rotatedBias.settle(at: rb, timeConstant: tau, dt: dt)
        }
        let lowPassed = Matrix3(rows: rotationRows.0.step(r.r0, timeConstant: tau, dt: dt),
                                rotationRows.1.step(r.r1, timeConstant: tau, dt: dt),
                                rotationRows.2.step(r.r2, timeConstant: tau, dt: dt))
        let rbLowPassed = rotatedBias.step(rb, timeConstant: tau, dt: dt)

        // P ← P + V, towards the initial uncertainty.
        if p.r0.x < p0 { p.r0.x += v }
        if p.r1.y < p0 { p.r1.y += v }
        if p.r2.z < p0 { p.r2.z += v }

        let h: Matrix3, e: Vector3, w: Vector3
        if let restRate {
            let sigma = settings.sigmaRestDps * settings.sigmaRestDps * scale
            h = .identity
            e = restRate - dps
            w = .one * (sigma * sigma / v + sigma)
        } else {
            let sigma = settings.sigmaMotionDps * settings.sigmaMotionDps * scale
            let wMotion = sigma * sigma / v + sigma
            h = lowPassed
            e = Vector3(degrees(-a.y / dt) + rbLowPassed.x - h.r0.dot(dps),
                        degrees(a.x / dt) + rbLowPassed.y - h.r1.dot(dps),
                        -h.r2.dot(dps))
            w = Vector3(wMotion, wMotion, wMotion / settings.verticalFactor)
        }
        let clipped = clip(e)
        // K = P Hᵀ (W + H P Hᵀ)⁻¹; b ← b + K e; P ← P − K H P.
        let pht = p * h.transposed
        var s = h * pht
        s.r0.x += w.x; s.r1.y += w.y; s.r2.z += w.z
        guard let sInverse = s.inverse else { return }
        let k = pht * sInverse
        dps = clip(dps + k * clipped)
        let khp = k * (h * p)
        p = Matrix3(rows: p.r0 - khp.r0, p.r1 - khp.r1, p.r2 - khp.r2)
    }

    /// `v` with each component within ±`clipDps`.
    private func clip(_ v: Vector3) -> Vector3 {
        let l = settings.clipDps
        return Vector3(Swift.min(l, Swift.max(-l, v.x)), Swift.min(l, Swift.max(-l, v.y)), Swift.min(l, Swift.max(-l, v.z)))
    }
}
