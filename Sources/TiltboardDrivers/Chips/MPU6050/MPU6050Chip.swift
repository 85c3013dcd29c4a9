import TiltboardCore

extension ChipKind {
    /// The InvenSense MPU-6050 family (and its accepted compatibles).
    public static let mpu6050 = ChipKind(registering: "mpu6050")
}

/// The MPU-6050 family as the registry knows it (RM-MPU-6000A rev 4.2, PS-MPU-6000A rev 3.4).
package struct MPU6050Chip: ChipDescription {
    package init() {}
    package var kind: ChipKind { .mpu6050 }
    package var partName: String { "MPU-6050" }
    package var idleStateName: String { "sleep" }
    /// AD0 low → 0x68, high → 0x69 (PS 6.4).
    package var addresses: [UInt8] { [0x68, 0x69] }
    package var addressPinName: String { "AD0" }
    package var idRegister: UInt8 { MPU6050Register.whoAmI }
    package var idRegisterName: String { "WHO_AM_I" }
    package var variants: [MPU6050Variant] { MPU6050Variant.accepted }
    /// PS 6.2: AFS_SEL 0…3.
    package var accelRangesG: [Int] { MPU6050Scale.accelRangesG }
    /// PS 6.1: FS_SEL 0…3.
    package var gyroscope: GyroscopeDescription? { GyroscopeDescription(rangesDps: MPU6050Scale.gyroRangesDps) }
    /// 1 kHz / (1 + SMPLRT_DIV), held to 4…1000 Hz like Linux (RM Register 25).
    package var rateRangeHz: ClosedRange<Double> { MPU6050Scale.minimumRateHz...MPU6050Scale.dlpfBaseRateHz }
    /// Accel, temperature and gyro from ACCEL_XOUT_H (RM Registers 59–72).
    package var sampleBytes: Int { 14 }
    /// FIFO_COUNTH/L, then the frames from FIFO_R_W (RM Registers 114–116).
    package var fifoDrain: FIFODrainForm { .countThenBatch(countBytes: 2) }
    /// Fast mode, 400 kHz (PS 6.4).
    package var maxBusClockHz: Int { 400_000 }
    package var maxRateHzBelowFastBus: Double? { nil }

    package func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try MPU6050(bus: bus, address: address, clock: clock)
    }
}
