#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Estimates the direction of gravity in the board frame from accelerometer (and gyro) samples.
///
/// With a gyro (`gyroAided`) it follows the structure of VQF (D. Laidig and T. Seel, "VQF: Highly
/// accurate IMU orientation estimation with bias estimation and magnetic disturbance rejection",
/// Information Fusion 91, 2023, §3.2–3.3):
/// - the gyro is integrated into an orientation relative to an *almost inertial* frame I, which
///   drifts only as slowly as the residual gyro bias lets it;
/// - every accelerometer sample is rotated into I and low-pass filtered there (second-order
///   Butterworth, time constant `timeConstant`, 3 s): linear acceleration, which averages to
///   nothing over a few seconds of hand motion, cancels, while gravity, which does not move in I,
///   stays — so no linear acceleration drags the estimate and no gain has to be tuned against it;
/// - a correction rotation aligns that filtered vector with the vertical at each sample, so the
///   correction's time constant is the filter's, the same at every sample rate.
///
/// While the board rests (rotation rate and acceleration both steady for `restMinSeconds`), the
/// filtered vector is replaced by the mean of the accelerometer in I over the rest's last
/// `restMeanSeconds`, so the estimate settles onto gravity within a second or two of the board
/// coming to rest and then holds as still as the average allows; the rate's own short mean is
/// taken for bias meanwhile. `HoldStill` learns the gyro bias at rest within the data sheet's
/// drift and hands over corrected rates; what it has not caught yet (before the first still
/// spell, or as the die warms while the board moves) `GyroBiasFilter` tracks here, at rest and in
/// motion (VQF §3.3), within a few °/s.
///
/// Without a gyro (`accelerometerOnly`) nothing can tell linear acceleration from tilt, and any
/// smoothing only adds lag, so the estimate is the measured direction itself (no lag);
/// `isTrusted` says when it cannot be gravity (|a| away from 1 g), and callers hold their last
/// trusted value meanwhile. At rest (the acceleration steady for `restMinSeconds`) it is the rest
/// mean instead, until the short low-pass departs from that mean by `restDepartureG`: a still
/// board reads still, and a slow tilt shows within that departure (≈ 0.17°).
///
/// Every per-step constant is derived from the sample's `dt`; nothing is allocated per sample.
public struct TiltEstimator: Sendable {
    /// How samples are combined.
    public enum Mode: Sendable, Equatable, Codable {
        /// The accelerometer's direction, untouched; see `isTrusted`.
        case accelerometerOnly
        /// Gyro-propagated orientation corrected toward the accelerometer filtered in the almost
        /// inertial frame with this time constant, s.
        case gyroAided(timeConstant: Double = 3.0)
    }

    /// Rest detection and the accelerometer-only trust band.
    package struct Settings: Sendable, Equatable {
        /// Time constant of the low-pass that rest is judged against, s.
        package var restFilterSeconds = 0.3
        /// Steady this long before the board counts as resting, s.
        package var restMinSeconds = 0.7
        /// Largest departure of the rotation rate from its low-pass while resting, °/s.
        package var restGyroDps = 2.0
        /// Largest low-passed rate while resting, °/s (the hold-still stage's own still gate): at
        /// rest it is taken for bias not yet learnt, so a steady turn faster than this is never
        /// mistaken for rest, and a slower one lags by at most this × `restMeanSeconds` / 2.
        package var restRateDps = 1.0
        /// The same while nobody has measured the bias yet (`biasKnown` false): the MPU-6050's
        /// ±20 °/s initial and ±20 °/s thermal zero-rate limits (PS rev 3.4 §6.1), with a margin,
        /// so a still board's rate is taken for bias from the start.
        package var unknownBiasRestRateDps = 45.0
        /// Largest departure of the acceleration from its low-pass while resting, g (0.5 m/s²).
        package var restAccelG = 0.051
        /// Weight, in samples, of the short low-pass the rest mean starts from.
        package var restSeedSamples = 30.0
        /// The rest mean spans at most this long, s: long enough to average the noise, short
        /// enough that a turn too slow to end the rest, or a residual gyro bias, moves it little.
        package var restMeanSeconds = 3.0
        /// Accelerometer only: at rest, a departure of the short low-pass from the rest mean beyond
        /// this ends the rest (a slow tilt), g (≈ 0.17°: several times the low-pass's noise).
        package var restDepartureG = 0.003
        /// Accelerometer only: | |a| − 1 g | beyond this and the direction cannot be gravity, g.
        package var trustBandG = 0.15

        /// The defaults given with each setting above.
        package init() {}
    }

    /// The filter in use.
    public let mode: Mode
    /// The rest-detection and trust settings; may be changed between updates.
    package var settings: Settings

    @usableFromInline var unitGravity: Vector3 = .unitZ
    @usableFromInline var initialised = false
    /// False while the accelerometer-only estimate cannot be gravity, or before the first sample.
    public private(set) var isTrusted = false
    /// True while the board rests (gyro-aided mode).
    public private(set) var isResting = false
    /// False while nobody has measured the gyro bias (no calibration, no still spell yet): a
    /// steady rate of a still board is then taken for bias at rest, however large.
    package var biasKnown = true

    /// The gyro bias the estimator still finds in the rates it is given, °/s (board frame).
    package var residualBiasDps: Vector3 { bias.dps }

    /// The rates handed in carry no bias any more: whoever removes it upstream has just measured
    /// it at rest. Forgets the residual estimate so the two never count the same bias twice.
    package mutating func clearResidualBias() { bias.clear() }

    // Gyro-aided state: board → I, and I → earth (vertical +Z).
    private var gyroOrientation = Quaternion.identity
    private var correction = Quaternion.identity
    private var accelFilter = LowPass2()
    private var filtersStarted = false
    private var restGyroFilter = LowPass2()
    private var restAccelFilter = LowPass2()
    private var restSeconds = 0.0
    private var restSum = Vector3.zero
    private var restCount = 0.0
    private var bias = GyroBiasFilter()

    /// A filter that initialises from its first sample.
    public init(mode: Mode) { self.init(mode: mode, settings: Settings()) }

    /// An estimator in `mode` with rest-detection and trust settings of its own.
    package init(mode: Mode, settings: Settings) {
        self.mode = mode
        self.settings = settings
    }

    /// The current unit gravity reaction in the board frame (+Z when flat, face up).
    @inlinable public var gravity: Vector3 { unitGravity }

    /// Pitch and roll of the current estimate.
    @inlinable public var angles: TiltAngles { TiltAngles(gravity: gravity) }

    /// Forgets the state; the next sample initialises directly.
    public mutating func reset() { self = TiltEstimator(mode: mode, settings: settings) }

    /// Folds in one sample (accel in g, gyro in °/s with its bias already removed, `dt` seconds
    /// since the previous sample) and returns the unit gravity estimate. A non-positive or
    /// non-finite `dt` only re-reads; a non-finite or zero acceleration is skipped.
    @discardableResult
    public mutating func update(accel: Vector3, gyroDps: Vector3?, dt: Double) -> Vector3 {
        guard accel.x.isFinite, accel.y.isFinite, accel.z.isFinite else { return gravity }
        let a = accel.length
        guard a > 1e-9 else { return gravity }
        if !initialised {
            // Start on the first sample; with a gyro, I is the board's frame and the correction
            // tips the measured direction onto the vertical.
            correction = Quaternion(from: accel / a, to: .unitZ)
            unitGravity = accel / a
            initialised = true
            isTrusted = mode != .accelerometerOnly || Swift.abs(a - 1) <= settings.trustBandG
            return gravity
        }
        guard case let .gyroAided(tau) = mode else {
            isTrusted = Swift.abs(a - 1) <= settings.trustBandG
            unitGravity = accel / a
            guard dt > 0, dt.isFinite else { return gravity }
            startFilters(timeConstant: nil, gyroDps: nil, dt: dt)
            updateRest(gyroDps: nil, accel: accel, dt: dt)
            if isResting {
                let mean = restMean(adding: accel, seed: restAccelFilter.output, dt: dt)
                // A departure of the short low-pass from the mean beyond the noise is a tilt:
                // the rest ends and the raw direction shows it at once.
                if (restAccelFilter.output - mean).length > settings.restDepartureG {
                    endRest()
                } else {
                    unitGravity = mean.normalized
                }
            }
            return gravity
        }
        guard dt > 0, dt.isFinite else { return gravity }
        startFilters(timeConstant: tau, gyroDps: gyroDps, dt: dt)

        if let w = gyroDps, w.x.isFinite, w.y.isFinite, w.z.isFinite {
            updateRest(gyroDps: w, accel: accel, dt: dt)
            // In motion the residual bias estimate is removed; at rest the true rate is nil, so
            // the rate's short mean is the bias still there: only departures from it turn I.
            let r = isResting ? w - restGyroFilter.output : w - bias.dps
            let omega = Vector3(radians(r.x), radians(r.y), radians(r.z))
            let rate = omega.length
            if rate > 0 {
                // q ← q ⊗ exp(ω dt / 2): the exact step for a constant rate over dt.
                let (sinHalf, cosHalf) = Self.sinCos(0.5 * rate * dt)
                let s = sinHalf / rate
                gyroOrientation = (gyroOrientation * Quaternion(w: cosHalf, x: omega.x * s, y: omega.y * s, z: omega.z * s)).normalized
            }
        } else {
            endRest()
        }

        let inertial = gyroOrientation.rotate(accel)
        var filtered = accelFilter.step(inertial, timeConstant: tau, dt: dt)
        if isResting {
            filtered = restMean(adding: inertial, seed: gyroOrientation.rotate(restAccelFilter.output), dt: dt)
            accelFilter.settle(at: filtered, timeConstant: tau, dt: dt)
        }

        // The smallest rotation that takes the filtered vector, seen from earth, to the vertical.
        let e = correction.rotate(filtered).normalized
        if e != .zero {
            let qw = ((e.z + 1) / 2).squareRoot()
            let step = qw > 1e-6 ? Quaternion(w: qw, x: 0.5 * e.y / qw, y: -0.5 * e.x / qw, z: 0)
                                 : Quaternion(w: 0, x: 1, y: 0, z: 0)
            correction = (step * correction).normalized
            if let w = gyroDps, w.x.isFinite, w.y.isFinite, w.z.isFinite {
                bias.update(orientation: correction * gyroOrientation, uncorrected: e,
                            restRate: isResting ? restGyroFilter.output : nil, timeConstant: tau, dt: dt)
            }
        }
        let g = (correction * gyroOrientation).conjugate.rotate(.unitZ).normalized
        if g != .zero { unitGravity = g }
        return gravity
    }

    /// The filters start, on the first step, in the steady state of the first sample's direction.
    private mutating func startFilters(timeConstant tau: Double?, gyroDps: Vector3?, dt: Double) {
        guard !filtersStarted else { return }
        filtersStarted = true
        if let tau { accelFilter.settle(at: unitGravity, timeConstant: tau, dt: dt) }
        restGyroFilter.settle(at: gyroDps ?? .zero, timeConstant: settings.restFilterSeconds, dt: dt)
        restAccelFilter.settle(at: unitGravity, timeConstant: settings.restFilterSeconds, dt: dt)
    }

    /// Rest: both the rate and the acceleration stay close to their short low-pass (VQF §3.4, with
    /// its thresholds), and the low-passed rate itself is small, for `restMinSeconds`.
    private mutating func updateRest(gyroDps w: Vector3?, accel: Vector3, dt: Double) {
        let accelMean = restAccelFilter.step(accel, timeConstant: settings.restFilterSeconds, dt: dt)
        var steady = (accel - accelMean).lengthSquared < settings.restAccelG * settings.restAccelG
        if let w {
            let gyroMean = restGyroFilter.step(w, timeConstant: settings.restFilterSeconds, dt: dt)
            let gate = settings.restGyroDps
            steady = steady && (w - gyroMean).lengthSquared < gate * gate
                && Swift.min(gyroMean.maxAbsComponent, (gyroMean - bias.dps).maxAbsComponent)
                    <= (biasKnown ? settings.restRateDps : settings.unknownBiasRestRateDps)
        }
        if steady {
            restSeconds += dt
            isResting = restSeconds >= settings.restMinSeconds
        } else {
            endRest()
        }
    }

    private mutating func endRest() {
        restSeconds = 0
        isResting = false
        restCount = 0
    }

    /// The mean of `v` over the rest's last `restMeanSeconds`, started from `seed` (the short
    /// low-pass, weighted as `restSeedSamples` samples) on the rest's first sample.
    private mutating func restMean(adding v: Vector3, seed: Vector3, dt: Double) -> Vector3 {
        if restCount == 0 {
            restCount = settings.restSeedSamples
            restSum = seed * restCount
        } else {
            let most = Swift.max(settings.restSeedSamples, settings.restMeanSeconds / dt)
            if restCount >= most {
                restSum = restSum * ((most - 1) / restCount)
                restCount = most - 1
            }
            restSum += v
            restCount += 1
        }
        return restSum / restCount
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

/// Second-order Butterworth low-pass on a vector, in transposed direct form II, whose cut-off
/// follows a time constant: f_c = √2 / (2π τ), the bilinear transform prewarped at f_c (as VQF's
/// reference filter). It starts at zero; `settle` starts it in the steady state of a value.
struct LowPass2: Sendable {
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var designedFor = (tau: 0.0, dt: 0.0)
    private var s0 = Vector3.zero, s1 = Vector3.zero
    private(set) var output = Vector3.zero

    private mutating func design(_ tau: Double, _ dt: Double) {
        guard tau != designedFor.tau || dt != designedFor.dt else { return }
        designedFor = (tau, dt)
        let fc = 2.0.squareRoot() / (2 * Double.pi * tau)
        let c = tan(Double.pi * fc * dt)
        let d = c * c + 2.0.squareRoot() * c + 1
        b0 = c * c / d; b1 = 2 * b0; b2 = b0
        a1 = 2 * (c * c - 1) / d
        a2 = (1 - 2.0.squareRoot() * c + c * c) / d
    }

    mutating func step(_ x: Vector3, timeConstant tau: Double, dt: Double) -> Vector3 {
        design(tau, dt)
        let y = x * b0 + s0
        s0 = x * b1 - y * a1 + s1
        s1 = x * b2 - y * a2
        output = y
        return y
    }

    /// Puts the filter in the steady state of a constant input `x`.
    mutating func settle(at x: Vector3, timeConstant tau: Double, dt: Double) {
        design(tau, dt)
        s0 = x * (1 - b0)
        s1 = x * (b2 - a2)
        output = x
    }
}
