import TiltboardCore
import TiltboardDrivers

/// The ADXL345's simulated part.
package struct SimulatedADXL345Chip: SimulatedChipFactory {
    package init() {}
    package var kind: ChipKind { .adxl345 }
    package var limits: DatasheetLimits { .adxl345 }

    package func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                         imperfections: SensorImperfections) -> any SimulatedChip {
        SimulatedADXL345(clock: clock, motion: motion, imperfections: imperfections,
                         deviceID: chipID ?? ADXL345Chip().referenceVariant.chipID)
    }

    /// Data sheet rev E Table 1: zero-g within the typical ±40 mg X/Y, ±80 mg Z; scale ±3 % (`limits.scaleError`);
    /// 290 µg/√Hz X/Y, 430 µg/√Hz Z.
    package func typicalPart(seed: UInt64) -> SensorImperfections {
        let draws = TypicalPartDraws(seed: seed)
        return SensorImperfections(
            zeroGOffsetG: draws.zeroGOffsetG(within: Vector3(0.040, 0.040, 0.080)),
            scaleError: draws.scaleError(within: limits.scaleError),
            accelNoiseDensityUgPerRootHz: 290,
            accelNoiseDensityZUgPerRootHz: 430,
            seed: seed)
    }
}

extension DatasheetLimits {
    /// ADXL345 data sheet rev E, Table 1:
    /// - "0 g Output" −150…+150 mg X/Y, −250…+250 mg Z (the minimum/maximum columns);
    /// - "0 g Offset vs. Temperature" ±0.8 mg/°C X/Y, ±4.5 mg/°C Z — typical figures: the
    ///   table gives no limit for them, so these are the largest the data sheet names (the
    ///   chip description's `zeroGDrift`, which the hold-still stage's drift absorber is
    ///   bounded by);
    /// - sensitivity 230…282 LSB/g at ±2 g around 256: −10 %…+10 %; ±3 % is used, as the
    ///   neutral pose and the hold-still figures do not depend on scale.
    package static let adxl345 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.150, 0.150, 0.250),
        zeroGTempcoGPerC: ADXL345Chip().zeroGDrift!.tempcoGPerC,
        scaleError: 0.03, gyroBiasDps: 0, gyroBiasTempcoDpsPerC: 0)
}
