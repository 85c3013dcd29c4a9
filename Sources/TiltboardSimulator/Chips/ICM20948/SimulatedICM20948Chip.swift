import TiltboardCore
import TiltboardDrivers

/// The ICM-20948's simulated part.
package struct SimulatedICM20948Chip: SimulatedChipFactory {
    package init() {}
    package var kind: ChipKind { .icm20948 }
    package var limits: DatasheetLimits { .icm20948 }

    package func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                         imperfections: SensorImperfections) -> any SimulatedChip {
        SimulatedICM20948(clock: clock, motion: motion, imperfections: imperfections,
                          whoAmI: chipID ?? ICM20948Chip().referenceVariant.chipID)
    }

    /// Zero-g within ±25 mg, gyro zero-rate within ±3 °/s (inside the ±5 °/s of `limits`),
    /// scale ±1.5 %; 230 µg/√Hz and 0.015 °/s/√Hz (DS Tables 1 and 2).
    package func typicalPart(seed: UInt64) -> SensorImperfections {
        let draws = TypicalPartDraws(seed: seed)
        return SensorImperfections(
            zeroGOffsetG: draws.zeroGOffsetG(within: limits.zeroGOffsetG),
            scaleError: draws.scaleError(within: limits.scaleError),
            accelNoiseDensityUgPerRootHz: 230,
            gyroBiasDps: draws.within(Vector3(3, 3, 3), from: 6),
            gyroNoiseDps: 0.015,
            seed: seed)
    }
}

extension DatasheetLimits {
    /// ICM-20948 data sheet DS-000189 rev 1.3, Table 1 (gyroscope) and Table 2 (accelerometer):
    /// - initial zero-rate output tolerance ±5 °/s; ZRO variation vs. temperature ±0.05 °/s/°C;
    /// - initial zero-g output tolerance ±25 mg (component level); zero-g level change vs.
    ///   temperature ±0.80 mg/°C (0…+70 °C);
    /// - sensitivity scale factor tolerance ±1.5 % (gyro; the accelerometer's ±0.5 %: the larger is kept).
    package static let icm20948 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.025, 0.025, 0.025),
        zeroGTempcoGPerC: Vector3(0.0008, 0.0008, 0.0008),
        scaleError: 0.015, gyroBiasDps: 5, gyroBiasTempcoDpsPerC: 0.05)
}
