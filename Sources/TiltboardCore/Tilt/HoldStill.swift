#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a still board still: learns the gyro's zero-rate output during still spells and, while a
/// spell lasts, holds the gravity reference against the accelerometer's temperature drift.
///
/// Runs on board-frame samples after the profile's calibration, before the tilt estimator, and
/// hands it corrected samples. Why both parts are needed:
/// - a complementary filter integrates any gyro bias it is not told about and settles at an
///   error of about bias × τ; the MPU-6050 allows ±20 °/s at 25 °C and a further ±20 °/s over
///   −40…85 °C (PS rev 3.4 §6.1), so the bias measured at calibration goes stale as the die
///   warms. While the board is still the true rate is zero, so the gyro's mean *is* the bias.
///   It is learnt only while still, and only as far as the temperature change since it was last
///   known explains at the data-sheet limit (plus `biasNoiseDps`), so a slow turn below the
///   gate cannot be learnt as bias; a turn faster than the gate ends the spell at once, so
///   nothing is lost in response. While a spell lasts the estimator is told the rate is zero.
/// - the accelerometer's zero-g output moves with temperature too (±35 mg X/Y, ±60 mg Z over
///   0…70 °C, §6.2: up to 0.45° over 10 °C), and a filter that trusts the accelerometer in the
///   long run follows it. During a spell the accelerometer's departure from the spell's settled
///   mean is taken as drift as far as the temperature change since then explains it at the
///   data-sheet limit (plus `snapG`, the noise of the short average); anything beyond passes
///   through, and a departure larger than that plus `departureG` ends the spell (the board
///   really tilted). A spell that starts where the neutral pose was captured, as far as the
///   temperature since then explains, takes the capture itself as its reference, so a board
///   held still at its calibrated pose reads exactly that pose and the marker does not creep.
/// Without a temperature reading (ADXL345) nothing tells drift from a slow tilt, so only the
/// noise-sized `snapG` is held back; without a gyro there is no bias to learn.
public struct HoldStill: Sendable {
    /// Limits and time constants; defaults suit the MPU-6050 at 100 Hz and more.
    public struct Settings: Sendable, Equatable {
        /// Time constant of the bias estimate while still, s.
        public var biasTimeConstant = 2.0
        /// Still this long before the bias is learnt and the reference set, s.
        public var settleSeconds = 1.5
        /// Time constant of the short acceleration average stillness is judged against, s.
        public var averageSeconds = 0.2
        /// Largest rotation rate (after the bias estimate) a still board shows, °/s: about 20
        /// times the MPU-6050's 0.05 °/s rms noise (PS §6.1).
        public var gyroGateDps = 1.0
        /// The gate while no bias is known: the ±20 °/s initial and ±20 °/s thermal limits of
        /// PS §6.1, with a margin.
        public var unknownBiasGateDps = 45.0
        /// How far the learnt bias may move at an unchanged temperature, °/s.
        public var biasNoiseDps = 0.02
        /// How far a sample may stray from the short average and still count as still, g.
        public var accelBandG = 0.02
        /// Largest bias change per °C: PS §6.1, ±20 °/s over the 60 °C from 25 °C to 85 °C.
        public var gyroTempcoDpsPerC = 20.0 / 60
        /// Largest zero-g change per °C: PS §6.2, ±60 mg over the 45 °C from 25 °C to 70 °C (Z,
        /// the larger of the axes).
        public var accelTempcoGPerC = 0.060 / 45
        /// Held back on top of the thermal allowance, g (≈ 0.1°): four times the noise of the
        /// 0.2 s average at the MPU-6050's 400 µg/√Hz (PS §6.2) sampled at 100 Hz.
        public var snapG = 0.002
        /// A departure from the spell's reference beyond the drift allowance by this much ends
        /// the spell, g (≈ 0.3°).
        public var departureG = 0.005

        public init() {}
    }

    public var settings: Settings
    /// The learnt residual gyro bias in the board frame, °/s (what the profile's bias missed).
    public private(set) var biasDps: Vector3 = .zero
    /// True once a bias is known: measured at calibration or learnt in a still spell.
    public private(set) var biasKnown: Bool
    /// The bias as last measured outright (calibration, or the first spell without one) and its
    /// temperature: the bias may move from it only as far as the temperature since explains.
    private var anchor: (bias: Vector3, tempC: Double?)
    /// The gyro's mean over a spell while no bias is known.
    private var acquisition = RunningStats3()
    private var accelAverage: Vector3?
    private var stillSince: Double?
    /// The spell's settled accelerometer mean and the temperature it belongs to; `samples` when
    /// measured in this spell (not the neutral capture), so more still samples may sharpen it.
    private var reference: (accel: Vector3, tempC: Double?, samples: RunningStats3?)?
    /// The neutral capture's mean acceleration (board frame, calibrated), nil when the pose was
    /// not captured (level), and the die temperature it was captured at, when known.
    public var neutralMeanG: Vector3?
    public var neutralTempC: Double?

    /// A tracker; `biasKnown` says whether the calibration already removed the gyro bias, and
    /// `calibratedTempC` at what die temperature the bias and the neutral pose were measured.
    /// `TiltChain` sets `neutralMeanG` from its neutral pose.
    public init(biasKnown: Bool, calibratedTempC: Double? = nil, settings: Settings = Settings()) {
        self.biasKnown = biasKnown
        anchor = (.zero, calibratedTempC)
        neutralTempC = calibratedTempC
        self.settings = settings
    }

    /// True while in a settled still spell (the reference is set).
    public var isHolding: Bool { reference != nil }

    /// The sample with the gyro bias removed and, in a still spell, the rate zeroed and the
    /// accelerometer's thermal drift held back; `dt` is the step the estimator will take.
    public mutating func correct(_ s: Sample, dt: Double) -> Sample {
        var out = s
        let lp = 1 - exp(-Swift.max(0, dt) / settings.averageSeconds)
        let average = accelAverage.map { $0 + (s.accel - $0) * lp } ?? s.accel
        accelAverage = average
        if let g = s.gyro { out.gyro = g - biasDps }

        // How far the temperature has moved since the bias was last trusted.
        var dT = 0.0
        if let t = s.tempC, let a = anchor.tempC { dT = Swift.abs(t - a) }
        var still = (s.accel - average).length <= settings.accelBandG
        if let rate = out.gyro, still {
            let gate = biasKnown ? settings.gyroGateDps + settings.gyroTempcoDpsPerC * dT : settings.unknownBiasGateDps
            still = rate.maxAbsComponent <= gate
        }
        var allowance = settings.snapG
        if still, let ref = reference {
            allowance = self.allowance(from: ref.tempC, to: s.tempC)
            still = (average - ref.accel).maxAbsComponent <= allowance + settings.departureG
        }
        guard still else {
            endSpell()
            return out
        }
        let since = stillSince ?? s.t
        stillSince = since
        let stillFor = s.t - since
        guard stillFor >= settings.settleSeconds else { return out }

        if anchor.tempC == nil { anchor.tempC = s.tempC }
        if let g = s.gyro, dt > 0 {
            if biasKnown {
                let b = biasDps + (g - biasDps) * (dt / (settings.biasTimeConstant + dt))
                biasDps = anchor.bias + clamp(b - anchor.bias, settings.biasNoiseDps + settings.gyroTempcoDpsPerC * dT)
            } else {
                acquisition.add(g)
                if stillFor >= settings.settleSeconds + 2 * settings.biasTimeConstant {
                    biasDps = acquisition.mean
                    biasKnown = true
                    anchor = (biasDps, s.tempC)
                }
            }
            out.gyro = biasKnown ? .zero : g - biasDps
        }
        if var ref = reference {
            // At an unchanged temperature, more samples only sharpen a reference of this spell's own.
            if var samples = ref.samples, Swift.abs((s.tempC ?? 0) - (ref.tempC ?? 0)) < 0.05 {
                samples.add(s.accel)
                ref.accel = samples.mean
                ref.samples = samples
                reference = ref
            }
            out.accel = s.accel - clamp(average - ref.accel, allowance)
        } else if biasKnown || s.gyro == nil {
            if let neutral = neutralMeanG,
               (average - neutral).maxAbsComponent <= self.allowance(from: neutralTempC, to: s.tempC) {
                reference = (neutral, neutralTempC, nil)
            } else {
                var samples = RunningStats3()
                samples.add(average)
                reference = (average, s.tempC, samples)
            }
        }
        return out
    }

    /// Forgets the spell in progress (after a gap in sampling); the bias is kept.
    public mutating func resumeAfterGap() {
        accelAverage = nil
        endSpell()
    }

    private mutating func endSpell() {
        stillSince = nil
        reference = nil
        acquisition.reset()
    }

    /// How far the accelerometer may have drifted between two temperatures, plus the noise band.
    private func allowance(from: Double?, to: Double?) -> Double {
        guard let from, let to else { return settings.snapG }
        return settings.snapG + settings.accelTempcoGPerC * Swift.abs(to - from)
    }

    /// `v` with each component limited to ±`limit`.
    private func clamp(_ v: Vector3, _ limit: Double) -> Vector3 {
        Vector3(Swift.min(limit, Swift.max(-limit, v.x)), Swift.min(limit, Swift.max(-limit, v.y)),
                Swift.min(limit, Swift.max(-limit, v.z)))
    }
}
