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
    /// Change of the zero-g output per °C of die temperature away from `referenceTempC`, in g/°C.
    public var zeroGTempcoGPerC: Vector3
    /// Change of the gyro zero-rate output per °C away from `referenceTempC`, in °/s/°C.
    public var gyroBiasTempcoDpsPerC: Vector3
    /// Die temperature rise after power-on, in °C: the die reaches the motion's temperature plus
    /// this, approached exponentially with `warmUpSeconds` as time constant.
    public var warmUpC: Double
    /// Time constant of the warm-up, in seconds.
    public var warmUpSeconds: Double
    /// Seeds the noise stream.
    public var seed: UInt64

    /// The temperature the offsets are given at (the data sheets' 25 °C).
    public static let referenceTempC = 25.0

    public init(zeroGOffsetG: Vector3 = .zero, scaleError: Vector3 = .zero, accelNoiseDensityUgPerRootHz: Double = 0,
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
    public func dieTempC(ambientC: Double, secondsSincePowerOn t: Double) -> Double {
        guard warmUpC != 0 else { return ambientC }
        return ambientC + warmUpC * (1 - exp(-Swift.max(0, t) / Swift.max(warmUpSeconds, 1e-9)))
    }

    /// A perfect part: output equals the physical input, quantised.
    public static let ideal = SensorImperfections()

    /// A typical part, errors drawn reproducibly from `seed`, no temperature drift or warm-up.
    ///
    /// MPU-6050: zero-g within ±50 mg X/Y, ±80 mg Z and scale ±3 % (PS rev 3.4 §6.2); 400 µg/√Hz
    /// (§6.2); gyro bias within ±3 °/s (well inside the ±20 °/s limit of §6.1, which
    /// `worstCase` uses); 0.005 °/s/√Hz (§6.1). ADXL345 (rev E Table 1): zero-g within the
    /// typical ±40 mg X/Y, ±80 mg Z; scale ±3 %; 290 µg/√Hz X/Y, 430 µg/√Hz Z.
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
        case .lis3dh:
            return SensorImperfections(
                zeroGOffsetG: DatasheetLimits.lis3dh.zeroGOffsetG.scaled(by: Vector3(draw(0), draw(1), draw(2))),
                scaleError: Vector3(0.03 * draw(3), 0.03 * draw(4), 0.03 * draw(5)),
                accelNoiseDensityUgPerRootHz: DatasheetLimits.lis3dhNoiseDensityUgPerRootHz,
                seed: seed)
        }
    }

    /// A part at the data sheets' limits: every offset and temperature coefficient at its
    /// largest allowed size, each with a sign drawn reproducibly from `seed`, and a die that
    /// warms up by `DatasheetLimits.warmUpC` after power-on. Sources next to each figure in
    /// `DatasheetLimits`.
    public static func worstCase(chip: ChipKind, seed: UInt64) -> SensorImperfections {
        func sign(_ i: UInt64) -> Double { SplitMix64.symmetric(seed: seed ^ 0x0BAD_5EED, index: i) < 0 ? -1 : 1 }
        func signed(_ v: Vector3, _ first: UInt64) -> Vector3 { Vector3(v.x * sign(first), v.y * sign(first + 1), v.z * sign(first + 2)) }
        var part = datasheet(chip: chip, seed: seed)
        let limits = DatasheetLimits.of(chip)
        part.zeroGOffsetG = signed(limits.zeroGOffsetG, 0)
        part.scaleError = signed(Vector3(limits.scaleError, limits.scaleError, limits.scaleError), 3)
        part.zeroGTempcoGPerC = signed(limits.zeroGTempcoGPerC, 6)
        if chip.hasGyro {
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
public struct DatasheetLimits: Sendable, Equatable {
    /// Largest zero-g output at 25 °C per axis, g.
    public var zeroGOffsetG: Vector3
    /// Largest change of the zero-g output per °C per axis, g/°C.
    public var zeroGTempcoGPerC: Vector3
    /// Largest sensitivity error, as a fraction.
    public var scaleError: Double
    /// Largest gyro zero-rate output at 25 °C, °/s (0 without a gyro).
    public var gyroBiasDps: Double
    /// Largest change of the zero-rate output per °C, °/s/°C (0 without a gyro).
    public var gyroBiasTempcoDpsPerC: Double

    /// MPU-6050 Product Specification rev 3.4 (PS-MPU-6000A-00):
    /// - §6.1 gyro "Initial ZRO Tolerance" ±20 °/s at 25 °C;
    /// - §6.1 "ZRO Variation Over Temperature" ±20 °/s over −40…85 °C; the farthest end lies
    ///   60 °C from 25 °C, so a straight line through the limit has slope 20/60 °/s/°C;
    /// - §6.2 accel "Initial Calibration Tolerance" (zero-g output) ±50 mg X/Y, ±80 mg Z;
    /// - §6.2 "Zero-G Level Change vs. Temperature" ±35 mg X/Y, ±60 mg Z over 0…70 °C; the
    ///   farthest end lies 45 °C from 25 °C: 35/45 and 60/45 mg/°C;
    /// - §6.2 sensitivity "Initial Calibration Tolerance" ±3 %.
    public static let mpu6050 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.050, 0.050, 0.080),
        zeroGTempcoGPerC: Vector3(0.035 / 45, 0.035 / 45, 0.060 / 45),
        scaleError: 0.03, gyroBiasDps: 20, gyroBiasTempcoDpsPerC: 20.0 / 60)

    /// ADXL345 data sheet rev E, Table 1:
    /// - "0 g Output" −150…+150 mg X/Y, −250…+250 mg Z (the minimum/maximum columns);
    /// - "0 g Offset vs. Temperature" ±0.8 mg/°C X/Y, ±4.5 mg/°C Z — typical figures: the
    ///   table gives no limit for them, so these are the largest the data sheet names (the
    ///   hold-still stage's figure, `HoldStill.adxl345ZeroGTempcoGPerC`, which its drift
    ///   absorber is bounded by);
    /// - sensitivity 230…282 LSB/g at ±2 g around 256: −10 %…+10 %; ±3 % is used, as the
    ///   neutral pose and the hold-still figures do not depend on scale.
    public static let adxl345 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.150, 0.150, 0.250),
        zeroGTempcoGPerC: HoldStill.adxl345ZeroGTempcoGPerC,
        scaleError: 0.03, gyroBiasDps: 0, gyroBiasTempcoDpsPerC: 0)

    /// LIS3DH data sheet DocID17530 Rev 2, Table 4:
    /// - "Typical zero-g level offset accuracy" ±40 mg (±2 g; after soldering): a typical figure,
    ///   the table gives no limit, so it is the largest the data sheet names;
    /// - "Zero-g level change vs. temperature" ±0.5 mg/°C (maximum delta from 25 °C);
    /// - sensitivity: the table gives typical values only; ±3 % as for the other parts.
    public static let lis3dh = DatasheetLimits(
        zeroGOffsetG: Vector3(0.040, 0.040, 0.040),
        zeroGTempcoGPerC: Vector3(0.0005, 0.0005, 0.0005),
        scaleError: 0.03, gyroBiasDps: 0, gyroBiasTempcoDpsPerC: 0)

    /// LIS3DH noise density, µg/√Hz: DocID17530 as read here names none; 220 µg/√Hz is ST's
    /// figure for the same-family LIS2DH12 in high-resolution mode (DocID025056 Table 4).
    public static let lis3dhNoiseDensityUgPerRootHz = 220.0

    /// The limits of `chip`.
    public static func of(_ chip: ChipKind) -> DatasheetLimits {
        switch chip {
        case .mpu6050: return .mpu6050
        case .adxl345: return .adxl345
        case .lis3dh: return .lis3dh
        }
    }

    /// Die warm-up of a worst-case part after power-on, °C, and its time constant, s. Not a
    /// data-sheet figure (neither sheet gives one): a small board in still air; 10 °C is the
    /// warm-up the hold-still figures are stated for.
    public static let warmUpC = 10.0
    public static let warmUpSeconds = 60.0
}
