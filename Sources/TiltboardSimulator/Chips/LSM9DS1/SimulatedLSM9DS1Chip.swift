import TiltboardCore
import TiltboardDrivers

/// The LSM9DS1's simulated part (accelerometer and gyroscope).
package struct SimulatedLSM9DS1Chip: SimulatedChipFactory {
    package init() {}
    package var kind: ChipKind { .lsm9ds1 }
    package var limits: DatasheetLimits { .lsm9ds1 }

    package func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                         imperfections: SensorImperfections) -> any SimulatedChip {
        SimulatedLSM9DS1(clock: clock, motion: motion, imperfections: imperfections,
                         whoAmI: chipID ?? LSM9DS1Chip().referenceVariant.chipID)
    }

    /// Zero-g drawn within ±90 mg and gyro zero-rate within ±3 °/s (inside the ±30 °/s of
    /// `limits`), scale ±3 %; noise `DatasheetLimits.lsm9ds1NoiseDensity…`.
    package func typicalPart(seed: UInt64) -> SensorImperfections {
        let draws = TypicalPartDraws(seed: seed)
        return SensorImperfections(
            zeroGOffsetG: draws.zeroGOffsetG(within: limits.zeroGOffsetG),
            scaleError: draws.scaleError(within: limits.scaleError),
            accelNoiseDensityUgPerRootHz: DatasheetLimits.lsm9ds1AccelNoiseDensityUgPerRootHz,
            gyroBiasDps: draws.within(Vector3(3, 3, 3), from: 6),
            gyroNoiseDps: DatasheetLimits.lsm9ds1GyroNoiseDpsPerRootHz,
            seed: seed)
    }
}

extension DatasheetLimits {
    /// LSM9DS1 data sheet DocID025715 Rev 3, Table 3 (sensor characteristics):
    /// - LA_TyOff, linear acceleration typical zero-g level offset accuracy, ±90 mg;
    /// - G_TyOff, angular rate typical zero-rate level, ±30 °/s;
    /// - the table as read here gives no zero-g or zero-rate change with temperature (0 here) and
    ///   typical sensitivities only (±3 % as for the other parts).
    package static let lsm9ds1 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.090, 0.090, 0.090), zeroGTempcoGPerC: .zero,
        scaleError: 0.03, gyroBiasDps: 30, gyroBiasTempcoDpsPerC: 0)

    /// Noise: the data sheet as read here gives no noise density; these are ST's figures for
    /// the same-generation LSM6DS3 (accelerometer 90 µg/√Hz, gyro 7 m°/s/√Hz), rounded up.
    package static let lsm9ds1AccelNoiseDensityUgPerRootHz = 100.0
    package static let lsm9ds1GyroNoiseDpsPerRootHz = 0.008
}
