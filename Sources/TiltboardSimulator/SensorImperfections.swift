import TiltboardCore
import TiltboardDrivers

/// How far a simulated part departs from an ideal sensor: fixed per-part errors plus noise.
///
/// Noise is drawn from a counter-based generator keyed by (`seed`, sample time), so reading the
/// same sample twice yields identical bytes and equal seeds give identical runs.
public struct SensorImperfections: Sendable, Equatable {
    /// Zero-g output in g, added to every accelerometer reading.
    public var zeroGOffsetG: Vector3
    /// Sensitivity error per axis as a fraction: output = true · (1 + scaleError).
    public var scaleError: Vector3
    /// Accelerometer noise density in µg/√Hz (X and Y; Z too unless `accelNoiseDensityZUgPerRootHz` is set).
    public var accelNoiseDensityUgPerRootHz: Double
    /// Z-axis noise density in µg/√Hz when it differs from X/Y (the ADXL345's does).
    public var accelNoiseDensityZUgPerRootHz: Double?
    /// Gyro zero-rate output in °/s.
    public var gyroBiasDps: Vector3
    /// Gyro noise density in °/s/√Hz.
    public var gyroNoiseDps: Double
    /// Seeds the noise stream.
    public var seed: UInt64

    public init(zeroGOffsetG: Vector3 = .zero, scaleError: Vector3 = .zero, accelNoiseDensityUgPerRootHz: Double = 0,
                accelNoiseDensityZUgPerRootHz: Double? = nil, gyroBiasDps: Vector3 = .zero, gyroNoiseDps: Double = 0,
                seed: UInt64 = 0) {
        self.zeroGOffsetG = zeroGOffsetG; self.scaleError = scaleError
        self.accelNoiseDensityUgPerRootHz = accelNoiseDensityUgPerRootHz
        self.accelNoiseDensityZUgPerRootHz = accelNoiseDensityZUgPerRootHz
        self.gyroBiasDps = gyroBiasDps; self.gyroNoiseDps = gyroNoiseDps; self.seed = seed
    }

    /// A perfect part: output equals the physical input, quantised.
    public static let ideal = SensorImperfections()

    /// A part with errors of data-sheet magnitude, drawn reproducibly from `seed`.
    ///
    /// MPU-6050: zero-g within ±50 mg X/Y, ±80 mg Z; scale ±3 %; 400 µg/√Hz; gyro bias within
    /// ±3 °/s (the ±20 °/s limit is rare in practice); 0.005 °/s/√Hz. ADXL345: zero-g within
    /// ±40 mg X/Y, ±80 mg Z; scale ±3 %; 290 µg/√Hz X/Y, 430 µg/√Hz Z.
    public static func datasheet(chip: ChipKind, seed: UInt64) -> SensorImperfections {
        func draw(_ i: UInt64) -> Double { SplitMix64.symmetric(seed: seed ^ 0x5EED_0FF5E7, index: i) }
        switch chip {
        case .mpu6050:
            return SensorImperfections(
                zeroGOffsetG: Vector3(0.050 * draw(0), 0.050 * draw(1), 0.080 * draw(2)),
                scaleError: Vector3(0.03 * draw(3), 0.03 * draw(4), 0.03 * draw(5)),
                accelNoiseDensityUgPerRootHz: 400,
                gyroBiasDps: Vector3(3 * draw(6), 3 * draw(7), 3 * draw(8)),
                gyroNoiseDps: 0.005,
                seed: seed)
        case .adxl345:
            return SensorImperfections(
                zeroGOffsetG: Vector3(0.040 * draw(0), 0.040 * draw(1), 0.080 * draw(2)),
                scaleError: Vector3(0.03 * draw(3), 0.03 * draw(4), 0.03 * draw(5)),
                accelNoiseDensityUgPerRootHz: 290,
                accelNoiseDensityZUgPerRootHz: 430,
                seed: seed)
        }
    }

    /// The accelerometer reading for `trueG` with noise over `bandwidthHz`, keyed by `index`.

    func measuredAccel(_ trueG: Vector3, bandwidthHz: Double, index: UInt64) -> Vector3 {
        var a = trueG.scaled(by: Vector3.one + scaleError) + zeroGOffsetG
        if accelNoiseDensityUgPerRootHz > 0 {
            let root = bandwidthHz.squareRoot() * 1e-6
            let sxy = accelNoiseDensityUgPerRootHz * root
            let sz = (accelNoiseDensityZUgPerRootHz ?? accelNoiseDensityUgPerRootHz) * root
            let base = index &* 8
            a.x += sxy * SplitMix64.gaussian(seed: seed, index: base)
            a.y += sxy * SplitMix64.gaussian(seed: seed, index: base &+ 1)
            a.z += sz * SplitMix64.gaussian(seed: seed, index: base &+ 2)
        }
        return a
    }

    /// The gyro reading for `trueDps` with noise over `bandwidthHz`, keyed by `index`.

    func measuredGyro(_ trueDps: Vector3, bandwidthHz: Double, index: UInt64) -> Vector3 {
        var g = trueDps + gyroBiasDps
        if gyroNoiseDps > 0 {
            let s = gyroNoiseDps * bandwidthHz.squareRoot()
            let base = index &* 8 &+ 4
            g.x += s * SplitMix64.gaussian(seed: seed, index: base)
            g.y += s * SplitMix64.gaussian(seed: seed, index: base &+ 1)
            g.z += s * SplitMix64.gaussian(seed: seed, index: base &+ 2)
        }
        return g
    }
}
