import TiltboardCore

extension ChipKind {
    /// TDK InvenSense's ICM-20948 (accelerometer and gyroscope; its magnetometer, an AK09916
    /// behind the auxiliary I²C master, is not used).
    public static let icm20948 = ChipKind(registering: "icm20948")
}

/// The ICM-20948's one accepted part (data sheet DS-000189 rev 1.3, "DS").
package struct ICM20948Variant: ChipVariant {
    package init() {}
    package var chipID: UInt8 { ICM20948.deviceID }
    package var part: String { ICM20948.partName }
    package var acceptedAsCompatible: Bool { false }
    /// The four banks behind REG_BANK_SEL (`ICM20948Map`).
    package var registerMap: RegisterMap { ICM20948Map.registerMap }
    /// XA_OFFS (bank 1) exist, but this driver does not program them: offsets are corrected in software.
    package var accelOffsets: OffsetRegisters? { nil }
    package var gyroOffsets: OffsetRegisters? { nil }
    /// DS §4, FIFO: 512 bytes; frames of accel, gyro and temperature, 14 bytes.
    package var fifo: FIFOGeometry? {
        FIFOGeometry(capacityBytes: ICM20948Scale.fifoBytes, frameBytes: ICM20948Scale.fifoFrameBytes)
    }
    package var temperature: TemperatureFormula? {
        TemperatureFormula(lsbPerC: ICM20948Scale.temperatureLSBPerC, offsetC: ICM20948Scale.temperatureOffsetC)
    }
    /// Wake-on-motion (bank 2 ACCEL_WOM_THR, 4 mg/LSB; bank 0 INT_ENABLE WOM_INT_EN, INT_STATUS
    /// WOM_INT): described for completeness; the driver does not arm it yet.
    package var motion: MotionInterruptRegisters {
        MotionInterruptRegisters(thresholdRegister: ICM20948Bank2.accelWakeOnMotionThreshold, thresholdGPerLSB: 0.004,
                                 enableRegister: ICM20948Bank0.intEnable, enableMask: 0x08,
                                 statusRegister: ICM20948Bank0.intStatus, statusMask: 0x08)
    }
}

/// The ICM-20948 as the registry knows it.
///
/// A banked chip: its description differs from the flat ones only in its `RegisterMap`, whose
/// `banks` names REG_BANK_SEL and the other banks' maps; `RegisterDevice` keeps the selected
/// bank. The ID register sits in bank 0, the bank the part powers on and resets in, so
/// identifying it (and probe) is a plain read.
package struct ICM20948Chip: ChipDescription {
    package init() {}
    package var kind: ChipKind { .icm20948 }
    package var partName: String { ICM20948.partName }
    package var idleStateName: String { "sleep" }
    /// AD0 low → 0x68, high → 0x69 (DS §6, I²C interface), as on the MPU-6050.
    package var addresses: [UInt8] { [0x68, 0x69] }
    package var addressPinName: String { "AD0" }
    package var idRegister: UInt8 { ICM20948Bank0.whoAmI }
    package var idRegisterName: String { "WHO_AM_I" }
    package var variants: [ICM20948Variant] { [ICM20948Variant()] }
    package var accelRangesG: [Int] { ICM20948Scale.accelRangesG }
    package var gyroscope: GyroscopeDescription? { GyroscopeDescription(rangesDps: ICM20948Scale.gyroRangesDps) }
    /// 1.125 kHz / (1 + divider), divider 0…255.
    package var rateRangeHz: ClosedRange<Double> { 4.4...1125 }
    /// ACCEL_XOUT_H through TEMP_OUT_L.
    package var sampleBytes: Int { 14 }
    /// FIFO_COUNTH/L, then the frames from FIFO_R_W (DS §8, user bank 0).
    package var fifoDrain: FIFODrainForm { .countThenBatch(countBytes: 2) }
    /// I²C fast mode, 400 kHz (DS, features).
    package var maxBusClockHz: Int { 400_000 }
    package var maxRateHzBelowFastBus: Double? { nil }
    /// The driver does not arm its motion interrupt (yet): `--wake-on-motion` is refused.
    package var offersWakeOnMotion: Bool { false }

    package func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try ICM20948(bus: bus, address: address, clock: clock)
    }
}
