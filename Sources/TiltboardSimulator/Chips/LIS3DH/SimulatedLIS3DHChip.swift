import TiltboardCore
import TiltboardDrivers

/// The LIS3DH's simulated part.
package struct SimulatedLIS3DHChip: SimulatedChipFactory {
    package init() {}
    package var kind: ChipKind { .lis3dh }
    package var limits: DatasheetLimits { .lis3dh }

    package func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                         imperfections: SensorImperfections) -> any SimulatedChip {
        SimulatedLIS3DH(clock: clock, motion: motion, imperfections: imperfections,
                        whoAmI: chipID ?? LIS3DHChip().referenceVariant.chipID)
    }

    /// Zero-g drawn within the typical ±40 mg (DS Table 4), scale ±3 % (`limits.scaleError`),
    /// and the noise density of `DatasheetLimits.lis3dhNoiseDensityUgPerRootHz`.
    package func typicalPart(seed: UInt64) -> SensorImperfections {
        let draws = TypicalPartDraws(seed: seed)
        return SensorImperfections(
            zeroGOffsetG: draws.zeroGOffsetG(within: limits.zeroGOffsetG),
            scaleError: draws.scaleError(within: limits.scaleError),
            accelNoiseDensityUgPerRootHz: DatasheetLimits.lis3dhNoiseDensityUgPerRootHz,
            seed: seed)
    }
}

extension DatasheetLimits {
    /// LIS3DH data sheet DocID17530 Rev 2, Table 4:
    /// - "Typical zero-g level offset accuracy" ±40 mg (±2 g): a typical figure, the table gives
    ///   no limit, so it is the largest the data sheet names;
    /// - "Zero-g level change vs. temperature" ±0.5 mg/°C (maximum delta from 25 °C);
    /// - sensitivity: typical values only; ±3 % as for the other parts.
    package static let lis3dh = DatasheetLimits(
        zeroGOffsetG: Vector3(0.040, 0.040, 0.040),
        zeroGTempcoGPerC: LIS3DHChip().zeroGDrift!.tempcoGPerC,
        scaleError: 0.03, gyroBiasDps: 0, gyroBiasTempcoDpsPerC: 0)

    /// LIS3DH noise density, µg/√Hz: the data sheet as read here names none; 220 µg/√Hz is
    /// ST's figure for the same-family LIS2DH12 in high-resolution mode.
    package static let lis3dhNoiseDensityUgPerRootHz = 220.0
}
