import TiltboardCore
import TiltboardDrivers

/// The MPU-6050 family's simulated parts: `SimulatedMPU6050` for any accepted WHO_AM_I.
package struct SimulatedMPU6050Chip: SimulatedChipFactory {
    package init() {}
    package var kind: ChipKind { .mpu6050 }
    package var limits: DatasheetLimits { .mpu6050 }

    package func makeChip(chipID: UInt8?, clock: any MonotonicClock, motion: MotionSource,
                         imperfections: SensorImperfections) -> any SimulatedChip {
        SimulatedMPU6050(clock: clock, motion: motion, imperfections: imperfections,
                         whoAmI: chipID ?? MPU6050Chip().referenceVariant.chipID)
    }

    /// Zero-g within ±50 mg X/Y, ±80 mg Z and scale ±3 % (`limits`, PS rev 3.4 §6.2); 400 µg/√Hz (§6.2);
    /// gyro bias within ±3 °/s (well inside the ±20 °/s limit of §6.1, which `worstCase`
    /// uses); 0.005 °/s/√Hz (§6.1).
    package func typicalPart(seed: UInt64) -> SensorImperfections {
        let draws = TypicalPartDraws(seed: seed)
        return SensorImperfections(
            zeroGOffsetG: draws.zeroGOffsetG(within: limits.zeroGOffsetG),
            scaleError: draws.scaleError(within: limits.scaleError),
            accelNoiseDensityUgPerRootHz: 400,
            gyroBiasDps: draws.within(Vector3(3, 3, 3), from: 6),
            gyroNoiseDps: 0.005,
            seed: seed)
    }
}

extension DatasheetLimits {
    /// MPU-6050 Product Specification rev 3.4 (PS-MPU-6000A-00):
    /// - §6.1 gyro "Initial ZRO Tolerance" ±20 °/s at 25 °C;
    /// - §6.1 "ZRO Variation Over Temperature" ±20 °/s over −40…85 °C; the farthest end lies
    ///   60 °C from 25 °C, so a straight line through the limit has slope 20/60 °/s/°C;
    /// - §6.2 accel "Initial Calibration Tolerance" (zero-g output) ±50 mg X/Y, ±80 mg Z;
    /// - §6.2 "Zero-G Level Change vs. Temperature" ±35 mg X/Y, ±60 mg Z over 0…70 °C; the
    ///   farthest end lies 45 °C from 25 °C: 35/45 and 60/45 mg/°C;
    /// - §6.2 sensitivity "Initial Calibration Tolerance" ±3 %.
    package static let mpu6050 = DatasheetLimits(
        zeroGOffsetG: Vector3(0.050, 0.050, 0.080),
        zeroGTempcoGPerC: Vector3(0.035 / 45, 0.035 / 45, 0.060 / 45),
        scaleError: 0.03, gyroBiasDps: 20, gyroBiasTempcoDpsPerC: 20.0 / 60)
}
