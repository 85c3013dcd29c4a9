/// Running mean, variance, minimum and maximum per axis (Welford), without storing samples.
package struct RunningStats3: Sendable, Equatable {
    /// Number of samples added.
    package private(set) var count: Int = 0
    /// Mean per axis.
    package private(set) var mean: Vector3 = .zero
    /// Smallest value seen per axis.
    package private(set) var min: Vector3 = .zero
    /// Largest value seen per axis.
    package private(set) var max: Vector3 = .zero
    // Sum of squared deviations from the running mean (Welford's M2).
    @usableFromInline var m2: Vector3 = .zero

    /// An empty accumulator.
    package init() {}

    /// Adds one sample.
    package mutating func add(_ v: Vector3) {
        count += 1
        if count == 1 {
            mean = v; min = v; max = v; m2 = .zero
            return
        }
        let delta = v - mean
        mean += delta / Double(count)
        m2 += delta.scaled(by: v - mean)
        min = Vector3(Swift.min(min.x, v.x), Swift.min(min.y, v.y), Swift.min(min.z, v.z))
        max = Vector3(Swift.max(max.x, v.x), Swift.max(max.y, v.y), Swift.max(max.z, v.z))
    }

    /// Forgets everything added so far.
    package mutating func reset() { self = RunningStats3() }

    /// Sample variance per axis (n − 1 denominator); zero below two samples.
    @inlinable package var variance: Vector3 { count > 1 ? m2 / Double(count - 1) : .zero }
    /// Sample standard deviation per axis.
    @inlinable package var stdDev: Vector3 {
        let v = variance
        return Vector3(v.x.squareRoot(), v.y.squareRoot(), v.z.squareRoot())
    }
    /// Peak-to-peak range per axis.
    @inlinable package var span: Vector3 { max - min }
}

/// Why a capture did not count as still.
public enum StillnessFailure: Sendable, Equatable, CustomStringConvertible {
    /// Fewer samples than the criteria need.
    case tooFewSamples(count: Int, needed: Int)
    /// Acceleration on `axis` (0 = X) scattered more than allowed.
    case accelNoise(axis: Int, stdDevG: Double, limitG: Double)
    /// Acceleration on `axis` jumped (bump or tap) more than allowed.
    case accelSpan(axis: Int, spanG: Double, limitG: Double)
    /// Rotation rate on `axis` scattered more than allowed.
    case gyroNoise(axis: Int, stdDevDps: Double, limitDps: Double)
    /// The mean acceleration is not about 1 g, so something other than gravity acts.
    case gravityMagnitude(measuredG: Double, toleranceG: Double)
    /// No sample for the given span (the sensor was lost, e.g. unplugged or browned out): a
    /// capture counts samples, not the time between them, so it starts again.
    case gap(Duration)

    /// The case and its fields, for a log: `StillnessFailure.gap(4.2 seconds)`. A program words
    /// it for people.
    public var description: String {
        switch self {
        case let .tooFewSamples(count, needed): return "StillnessFailure.tooFewSamples(count: \(count), needed: \(needed))"
        case let .accelNoise(axis, sd, limit): return "StillnessFailure.accelNoise(axis: \(axis), stdDevG: \(sd), limitG: \(limit))"
        case let .accelSpan(axis, span, limit): return "StillnessFailure.accelSpan(axis: \(axis), spanG: \(span), limitG: \(limit))"
        case let .gyroNoise(axis, sd, limit): return "StillnessFailure.gyroNoise(axis: \(axis), stdDevDps: \(sd), limitDps: \(limit))"
        case let .gravityMagnitude(g, tol): return "StillnessFailure.gravityMagnitude(measuredG: \(g), toleranceG: \(tol))"
        case let .gap(span): return "StillnessFailure.gap(\(span))"
        }
    }
}

/// Limits under which a capture counts as still.
///
/// Defaults pass the MPU-6050's data-sheet noise (≈ 3.5 mg rms at a 44 Hz filter; ADXL345 ≈ 1 LSB
/// = 3.9 mg) with a four-fold margin, and reject a hand moving the board, which scatters tens of mg.
public struct StillnessCriteria: Sendable, Equatable, Codable {
    /// Largest allowed standard deviation per accelerometer axis, in g.
    public var maxStdDevG: Double
    /// Largest allowed peak-to-peak range per axis, in g; catches a single bump that a long
    /// capture's standard deviation would average away. nil disables.
    public var maxSpanG: Double?
    /// Largest allowed gyro standard deviation per axis, in °/s; nil disables.
    public var maxGyroStdDevDps: Double?
    /// Allowed distance of the mean's magnitude from 1 g; nil disables. Wide enough for
    /// uncalibrated sensors at their limits: ADXL345 rev E Table 1, 0 g output up to ±250 mg on
    /// Z and sensitivity 230…282 LSB/g (up to +10 %).
    public var gravityToleranceG: Double?
    /// Fewest samples that make a judgement.
    public var minSamples: Int

    /// Creates criteria; see the properties for units.
    public init(maxStdDevG: Double = 0.015, maxSpanG: Double? = 0.08, maxGyroStdDevDps: Double? = 1.5,
                gravityToleranceG: Double? = 0.35, minSamples: Int = 10) {
        self.maxStdDevG = maxStdDevG; self.maxSpanG = maxSpanG; self.maxGyroStdDevDps = maxGyroStdDevDps
        self.gravityToleranceG = gravityToleranceG; self.minSamples = minSamples
    }

    /// nil when the capture is still; otherwise the first reason it is not (worst axis).
    package func check(accel: RunningStats3, gyro: RunningStats3? = nil) -> StillnessFailure? {
        guard accel.count >= minSamples else { return .tooFewSamples(count: accel.count, needed: minSamples) }
        let sd = accel.stdDev
        let worst = Self.worstAxis(sd)
        if sd[worst] > maxStdDevG { return .accelNoise(axis: worst, stdDevG: sd[worst], limitG: maxStdDevG) }
        if let limit = maxSpanG {
            let span = accel.span
            let a = Self.worstAxis(span)
            if span[a] > limit { return .accelSpan(axis: a, spanG: span[a], limitG: limit) }
        }
        if let limit = maxGyroStdDevDps, let gyro, gyro.count > 1 {
            let gsd = gyro.stdDev
            let a = Self.worstAxis(gsd)
            if gsd[a] > limit { return .gyroNoise(axis: a, stdDevDps: gsd[a], limitDps: limit) }
        }
        if let tol = gravityToleranceG {
            let g = accel.mean.length
            if Swift.abs(g - 1) > tol { return .gravityMagnitude(measuredG: g, toleranceG: tol) }
        }
        return nil
    }

    static func worstAxis(_ v: Vector3) -> Int {
        v.x >= v.y ? (v.x >= v.z ? 0 : 2) : (v.y >= v.z ? 1 : 2)
    }
}
