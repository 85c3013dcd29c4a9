#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import TiltboardCore
import TiltboardDrivers

/// How far a simulated part departs from an ideal sensor: fixed per-part errors plus noise.
///
/// Noise is drawn from a counter-based generator keyed by (`seed`, sample time), so reading the
/// same sample twice yields identical bytes and equal seeds give identical runs.
package struct SensorImperfections: Sendable, Equatable {
    /// Zero-g output in g, added to every accelerometer reading.
    package var zeroGOffsetG: Vector3
    /// Sensitivity error per axis as a fraction: output = true · (1 + scaleError).
    package var scaleError: Vector3
    /// Accelerometer noise density in µg/√Hz (X and Y; Z too unless `accelNoiseDensityZUgPerRootHz` is set).
    package var accelNoiseDensityUgPerRootHz: Double
    /// Z-axis noise density in µg/√Hz when it differs from X/Y (the ADXL345's does).
    package var accelNoiseDensityZUgPerRootHz: Double?
    /// Gyro zero-rate output in °/s.
    package var gyroBiasDps: Vector3
    /// Gyro noise density in °/s/√Hz.
    package var gyroNoiseDps: Double
    /// Change of the zero-g output per °C of die temperature away from `referenceTempC`, in g/°C.
    package var zeroGTempcoGPerC: Vector3
    /// Change of the gyro zero-rate output per °C away from `referenceTempC`, in °/s/°C.
    package var gyroBiasTempcoDpsPerC: Vector3
    /// Die temperature rise after power-on, in °C: the die reaches the motion's temperature plus
    /// this, approached exponentially with `warmUpSeconds` as time constant.
    package var warmUpC: Double
    /// Time constant of the warm-up, in seconds.
    package var warmUpSeconds: Double
    /// Seeds the noise stream.
    package var seed: UInt64

    /// The temperature the offsets are given at (the data sheets' 25 °C).
    package static let referenceTempC = 25.0

    package init(zeroGOffsetG: Vector3 = .zero, scaleError: Vector3 = .zero, accelNoiseDensityUgPerRootHz: Double = 0,
                accelNoiseDensityZUgPerRootHz: Double? = nil, gyroBiasDps: Vector3 = .zero, gyroNoiseDps: Double = 0,
                zeroGTempcoGPerC: Vector3 = .zero, gyroBiasTempcoDpsPerC: Vector3 = .zero,
                warmUpC: Double = 0, warmUpSeconds: Double = 60, seed: UInt64 = 0) {
        self.zeroGOffsetG = zeroGOffsetG; self.scaleError = scaleError
        self.accelNoiseDensityUgPerRootHz = accelNoiseDensityUgPerRootHz
        self.accelNoiseDensityZUgPerRootHz = accelNoiseDensityZUgPerRootHz
        self.gyroBiasDps = gyroBiasDps; self.gyroNoiseDps = gyroNoiseDps
        self.zeroGTempcoGPerC = zeroGTempcoGPerC; self.gyroBiasTempcoDpsPerC = gyroBiasTempcoDpsPerC
        self.warmUpC = warmUpC; self.warmUpSeconds = warmUpSeconds; self.seed = seed
    }

    /// The die temperature `secondsSincePowerOn` after power-on, where the surroundings are `ambientC`.
    package func dieTempC(ambientC: Double, secondsSincePowerOn t: Double) -> Double {
        guard warmUpC != 0 else { return ambientC }
        return ambientC + warmUpC * (1 - exp(-Swift.max(0, t) / Swift.max(warmUpSeconds, 1e-9)))
    }

    /// A perfect part: output equals the physical input, quantised.
    package static let ideal = SensorImperfections()

    /// A typical part of `chip`, errors drawn reproducibly from `seed`, no temperature drift or
    /// warm-up (each simulated chip's `typicalPart`, which cites its figures).
    package static func datasheet(chip: ChipKind, seed: UInt64) -> SensorImperfections {
        SimulatedChipRegistry.factory(for: chip).typicalPart(seed: seed)
    }

    /// A part at the data sheets' limits: every offset and temperature coefficient at its
    /// largest allowed size, each with a sign drawn reproducibly from `seed`, and a die that
    /// warms up by `DatasheetLimits.warmUpC` after power-on. Sources next to each figure in
    /// `DatasheetLimits`.
    package static func worstCase(chip: ChipKind, seed: UInt64) -> SensorImperfections {
        func sign(_ i: UInt64) -> Double { SplitMix64.symmetric(seed: seed ^ 0x0BAD_5EED, index: i) < 0 ? -1 : 1 }
        func signed(_ v: Vector3, _ first: UInt64) -> Vector3 { Vector3(v.x * sign(first), v.y * sign(first + 1), v.z * sign(first + 2)) }
        var part = datasheet(chip: chip, seed: seed)
        let limits = SimulatedChipRegistry.factory(for: chip).limits
        part.zeroGOffsetG = signed(limits.zeroGOffsetG, 0)
        part.scaleError = signed(Vector3(limits.scaleError, limits.scaleError, limits.scaleError), 3)
        part.zeroGTempcoGPerC = signed(limits.zeroGTempcoGPerC, 6)
        if chip.details.gyroscope != nil {
            part.gyroBiasDps = signed(Vector3(limits.gyroBiasDps, limits.gyroBiasDps, limits.gyroBiasDps), 9)
            part.gyroBiasTempcoDpsPerC = signed(Vector3(limits.gyroBiasTempcoDpsPerC, limits.gyroBiasTempcoDpsPerC, limits.gyroBiasTempcoDpsPerC), 12)
        }
        part.warmUpC = DatasheetLimits.warmUpC
        part.warmUpSeconds = DatasheetLimits.warmUpSeconds
        return part
    }

    /// The accelerometer reading for `trueG` at die temperature `tempC`, with noise over
    /// `bandwidthHz`, keyed by `index`.
    func measuredAccel(_ trueG: Vector3, tempC: Double = referenceTempC, bandwidthHz: Double, index: UInt64) -> Vector3 {
        var a = trueG.scaled(by: Vector3.one + scaleError) + zeroGOffsetG
            + zeroGTempcoGPerC * (tempC - Self.referenceTempC)
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

    /// The gyro reading for `trueDps` at die temperature `tempC`, with noise over `bandwidthHz`,
    /// keyed by `index`.
    func measuredGyro(_ trueDps: Vector3, tempC: Double = referenceTempC, bandwidthHz: Double, index: UInt64) -> Vector3 {
        var g = trueDps + gyroBiasDps + gyroBiasTempcoDpsPerC * (tempC - Self.referenceTempC)
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

/// The data sheets' limits for one chip, the figures `SensorImperfections.worstCase` draws at.
package struct DatasheetLimits: Sendable, Equatable {
    /// Largest zero-g output at 25 °C per axis, g.
    package var zeroGOffsetG: Vector3
    /// Largest change of the zero-g output per °C per axis, g/°C.
    package var zeroGTempcoGPerC: Vector3
    /// Largest sensitivity error, as a fraction.
    package var scaleError: Double
    /// Largest gyro zero-rate output at 25 °C, °/s (0 without a gyro).
    package var gyroBiasDps: Double
    /// Largest change of the zero-rate output per °C, °/s/°C (0 without a gyro).
    package var gyroBiasTempcoDpsPerC: Double

    /// Die warm-up of a worst-case part after power-on, °C, and its time constant, s. Not a
    /// data-sheet figure (neither sheet gives one): a small board in still air; 10 °C is the
    /// warm-up the hold-still figures are stated for.
    package static let warmUpC = 10.0
    package static let warmUpSeconds = 60.0
}
