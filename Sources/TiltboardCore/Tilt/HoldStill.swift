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
/// - a gyro-aided estimator integrates any gyro bias it is not told about into an error that
///   grows with its time constant; the MPU-6050 allows ±20 °/s at 25 °C and a further ±20 °/s over
///   −40…85 °C (PS rev 3.4 §6.1), so the bias measured at calibration goes stale as the die
///   warms. While the board is still the true rate is zero, so the gyro's mean *is* the bias.
///   It is learnt only while still, and only as far as the temperature change since it was last
///   known explains at the data-sheet limit (plus `biasNoiseDps`), so a slow turn below the
///   gate cannot be learnt as bias; a turn faster than the gate ends the spell at once, so
///   nothing is lost in response. While a spell lasts the estimator is told the rate is zero,
///   and it drops its own residual estimate (`TiltEstimator.clearResidualBias`): one bias
///   estimate at a time, this stage's at rest, the estimator's in motion.
/// - the accelerometer's zero-g output moves with temperature too (±35 mg X/Y, ±60 mg Z over
///   0…70 °C, §6.2: up to 0.45° over 10 °C), and a filter that trusts the accelerometer in the
///   long run follows it. During a spell the accelerometer's departure from the spell's settled
///   mean is taken as drift as far as the temperature change since then explains it at the
///   data-sheet limit (plus `snapG`, the noise of the short average); anything beyond passes
///   through, and a departure larger than that plus `departureG` ends the spell (the board
///   really tilted). A spell that starts where the neutral pose was captured, as far as the
///   temperature since then explains, takes the capture itself as its reference, so a board
///   held still at its calibrated pose reads exactly that pose and the marker does not creep.
/// - an accelerometer-only part (ADXL345: no gyro, no thermometer) cannot tell drift from a slow
///   tilt by temperature, so it goes by rate: during a still spell a slow, steady departure from
///   the reference no faster per axis than the data sheet's zero-g tempco at `warmUpRateCPerS`
///   is taken as offset drift and absorbed into `absorbedG`, which is bounded by the tempco over
///   the part's whole temperature range. A departure faster than that outruns the absorber and
///   ends the spell after `departureG`, so a deliberate tilt passes through at once. The price:
///   a deliberate tilt slower than the bound (about 0.4 mg/s on X/Y, 0.023°/s, 1.4° a minute)
///   while otherwise still is absorbed too, up to the bound. The absorbed offset is kept while
///   the board moves (a warm die stays warm) but decays with `driftDecaySeconds`, so anything
///   absorbed wrongly is given back over minutes; a new neutral pose clears it.
package struct HoldStill: Sendable {
    /// Limits and time constants; defaults suit the MPU-6050 at 100 Hz and more (the drift
    /// absorber's, the ADXL345).
    package struct Settings: Sendable, Equatable {
        /// Time constant of the bias estimate while still, s.
        package var biasTimeConstant = 2.0
        /// Still this long before the bias is learnt and the reference set, s.
        package var settleSeconds = 1.5
        /// While no bias is known, the gyro's mean over this much of a settled spell is taken as
        /// the bias, s: at the MPU-6050's 0.05 °/s rms noise (PS §6.1) a second of samples at
        /// 100 Hz pins it to 0.005 °/s.
        package var acquisitionSeconds = 1.0
        /// Time constant of the short acceleration average stillness is judged against, s.
        package var averageSeconds = 0.2
        /// Largest rotation rate (after the bias estimate) a still board shows, °/s: about 20
        /// times the MPU-6050's 0.05 °/s rms noise (PS §6.1).
        package var gyroGateDps = 1.0
        /// The gate while no bias is known: the ±20 °/s initial and ±20 °/s thermal limits of
        /// PS §6.1, with a margin.
        package var unknownBiasGateDps = 45.0
        /// How far the learnt bias may move at an unchanged temperature, °/s.
        package var biasNoiseDps = 0.02
        /// How far a sample may stray from the short average and still count as still, g.
        package var accelBandG = 0.02
        /// Largest bias change per °C: PS §6.1, ±20 °/s over the 60 °C from 25 °C to 85 °C.
        package var gyroTempcoDpsPerC = 20.0 / 60
        /// Largest zero-g change per °C: PS §6.2, ±60 mg over the 45 °C from 25 °C to 70 °C (Z,
        /// the larger of the axes).
        package var accelTempcoGPerC = 0.060 / 45
        /// Held back on top of the thermal allowance, g (≈ 0.1°): four times the noise of the
        /// 0.2 s average at the MPU-6050's 400 µg/√Hz (PS §6.2) sampled at 100 Hz.
        package var snapG = 0.002
        /// A departure from the spell's reference beyond the drift allowance by this much ends
        /// the spell, g (≈ 0.3°).
        package var departureG = 0.005
        /// Accelerometer-only parts (no gyro, no temperature in the samples): the zero-g change
        /// per °C per board axis (`TiltTracker` turns the sensor's axes into the board's), g/°C,
        /// the chip's data-sheet figure (`ChipDescription.zeroGDrift`); `.zero`, the default,
        /// turns the drift absorber off.
        package var driftGPerC = Vector3.zero
        /// The fastest die warm-up the absorber follows, °C/s: 10 °C with a 20 s time constant
        /// starts at 0.5 °C/s (a bare board in still air warms by a few °C over minutes).
        package var warmUpRateCPerS = 0.5
        /// The part's operating range, °C (the chip's, with `driftGPerC`). `driftGPerC` over it
        /// is the most the absorber ever takes for drift.
        package var temperatureRangeC = 0.0
        /// Time constant with which the absorbed drift is given back while the board moves, s.
        package var driftDecaySeconds = 600.0

        /// Fastest drift absorbed, g/s per axis.
        package var driftRateGPerS: Vector3 { driftGPerC * warmUpRateCPerS }
        /// Most drift absorbed, g per axis.
        package var driftLimitG: Vector3 { driftGPerC * temperatureRangeC }

        package init() {}
    }

    package var settings: Settings
    /// The zero-g drift absorbed so far on an accelerometer-only part, g per board axis; it is
    /// subtracted from every sample.
    package private(set) var absorbedG: Vector3 = .zero
    /// The learnt residual gyro bias in the board frame, °/s (what the profile's bias missed).
    package private(set) var biasDps: Vector3 = .zero
    /// True once a bias is known: measured at calibration or learnt in a still spell.
    package private(set) var biasKnown: Bool
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
    package var neutralMeanG: Vector3? {
        didSet { absorbedG = .zero }
    }
    package var neutralTempC: Double?

    /// A tracker; `biasKnown` says whether the calibration already removed the gyro bias, and
    /// `calibratedTempC` at what die temperature the bias and the neutral pose were measured.
    /// `TiltTracker` sets `neutralMeanG` from its neutral pose.
    package init(biasKnown: Bool, calibratedTempC: Double? = nil, settings: Settings = Settings()) {
        self.biasKnown = biasKnown
        anchor = (.zero, calibratedTempC)
        neutralTempC = calibratedTempC
        self.settings = settings
    }

    /// True while in a settled still spell (the reference is set).
    package var isHolding: Bool { reference != nil }

    /// The sample with the gyro bias removed and, in a still spell, the rate zeroed and the
    /// accelerometer's thermal drift held back; `dt` is the step the estimator will take.
    package mutating func correct(_ s: Sample, dt: Double) -> Sample {
        var out = s
        let lp = 1 - exp(-Swift.max(0, dt) / settings.averageSeconds)
        // Everything below works on the sample less the drift absorbed so far (on an
        // accelerometer-only part), so a drifting reading does not make the average lag.
        out.accel = s.accel - absorbedG
        let average = accelAverage.map { $0 + (out.accel - $0) * lp } ?? out.accel
        accelAverage = average
        if let g = s.gyro { out.gyro = g - biasDps }
        let absorbing = s.gyro == nil && s.tempC == nil && settings.driftGPerC != .zero

        // How far the temperature has moved since the bias was last trusted.
        var dT = 0.0
        if let t = s.tempC, let a = anchor.tempC { dT = Swift.abs(t - a) }
        var still = (out.accel - average).length <= settings.accelBandG
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
            if absorbing { absorbedG = absorbedG * exp(-Swift.max(0, dt) / settings.driftDecaySeconds) }
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
                if stillFor >= settings.settleSeconds + settings.acquisitionSeconds {
                    biasDps = acquisition.mean
                    biasKnown = true
                    anchor = (biasDps, s.tempC)
                }
            }
            out.gyro = biasKnown ? .zero : g - biasDps
        }
        if var ref = reference {
            let before = absorbedG
            // On an accelerometer-only part a departure no faster than drift can be is drift.
            if absorbing { absorb(clamp(average - ref.accel, settings.driftRateGPerS * dt)) }
            // At an unchanged temperature, more samples only sharpen a reference of this spell's own.
            if var samples = ref.samples, Swift.abs((s.tempC ?? 0) - (ref.tempC ?? 0)) < 0.05 {
                samples.add(s.accel - absorbedG)
                ref.accel = samples.mean
                ref.samples = samples
                reference = ref
            }
            out.accel = s.accel - absorbedG - clamp(average - (absorbedG - before) - ref.accel, allowance)
        } else if biasKnown || s.gyro == nil {
            // On an accelerometer-only part the settle time's drift may lie between the two.
            let settleDrift = absorbing ? settings.driftRateGPerS * stillFor : .zero
            if let neutral = neutralMeanG,
               fits(average - neutral, within: settleDrift + .one * self.allowance(from: neutralTempC, to: s.tempC)) {
                absorb(clamp(average - neutral, settleDrift))
                reference = (neutral, neutralTempC, nil)
            } else {
                var samples = RunningStats3()
                samples.add(average)
                reference = (average, s.tempC, samples)
            }
        }
        return out
    }

    /// Adds `step` to the absorbed drift, within the most the part can drift.
    private mutating func absorb(_ step: Vector3) {
        absorbedG = clamp(absorbedG + step, settings.driftLimitG)
    }

    /// True when every component of `v` lies within ±`limit`'s.
    private func fits(_ v: Vector3, within limit: Vector3) -> Bool {
        Swift.abs(v.x) <= limit.x && Swift.abs(v.y) <= limit.y && Swift.abs(v.z) <= limit.z
    }

    /// Forgets the spell in progress (after a gap in sampling); the bias is kept.
    package mutating func resumeAfterGap() {
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
    private func clamp(_ v: Vector3, _ limit: Double) -> Vector3 { clamp(v, .one * limit) }

    /// `v` with each component limited to ±the same component of `limit`.
    private func clamp(_ v: Vector3, _ limit: Vector3) -> Vector3 {
        Vector3(Swift.min(limit.x, Swift.max(-limit.x, v.x)), Swift.min(limit.y, Swift.max(-limit.y, v.y)),
                Swift.min(limit.z, Swift.max(-limit.z, v.z)))
    }
}
