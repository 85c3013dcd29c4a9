import TiltboardCore

extension ChipKind {
    /// ST's LIS3DH.
    public static let lis3dh = ChipKind(registering: "lis3dh")
}

/// The LIS3DH's one accepted part (data sheet DocID17530 Rev 2, "DS").
package struct LIS3DHVariant: ChipVariant {
    package init() {}
    package var chipID: UInt8 { LIS3DH.deviceID }
    package var part: String { LIS3DH.partName }
    package var acceptedAsCompatible: Bool { false }
    /// DS register address map; a multi-byte transfer walks the registers only with bit 7 of the
    /// sub-address.
    package var registerMap: RegisterMap {
        RegisterMap(
            autoIncrement: .whenSubAddressBit(LIS3DHRegister.autoIncrement),
            writable: LIS3DHRegister.writable,
            volatile: LIS3DHRegister.volatileRegisters,
            powerOnValues: LIS3DHRegister.powerOnValues.filter { $0.register != LIS3DHRegister.whoAmI },
            readBackMasks: [(LIS3DHRegister.control5, ~LIS3DHControl5.boot)])
    }
    /// None: the part has no offset registers.
    package var accelOffsets: OffsetRegisters? { nil }
    package var gyroOffsets: OffsetRegisters? { nil }
    /// DS §5.1: 32 levels of X, Y, Z.
    package var fifo: FIFOGeometry? { FIFOGeometry(capacityBytes: LIS3DHScale.fifoDepth * 6, frameBytes: 6) }
    /// The temperature path (DS Table 5: 1 digit/°C through the auxiliary ADC) has no specified
    /// offset: it tells a change of temperature, not a temperature, so none is reported.
    package var temperature: TemperatureFormula? { nil }
    /// Interrupt generator 1: INT1_THS (16 mg/LSB at ±2 g), X/Y/Z high events in INT1_CFG, IA in INT1_SRC.
    package var motion: MotionInterruptRegisters {
        MotionInterruptRegisters(
            thresholdRegister: LIS3DHRegister.int1Threshold, thresholdGPerLSB: LIS3DHScale.thresholdGPerLSB[0],
            enableRegister: LIS3DHRegister.int1Config, enableMask: LIS3DHInterrupt.anyAxisHigh,
            statusRegister: LIS3DHRegister.int1Source, statusMask: LIS3DHInterrupt.active)
    }
}

/// The LIS3DH as the registry knows it.
package struct LIS3DHChip: ChipDescription {
    package init() {}
    package var kind: ChipKind { .lis3dh }
    package var partName: String { LIS3DH.partName }
    package var idleStateName: String { "power-down" }
    /// SDO/SA0 low → 0x18, high → 0x19 (DS, I²C operation).
    package var addresses: [UInt8] { [0x18, 0x19] }
    package var addressPinName: String { "SDO/SA0" }
    package var idRegister: UInt8 { LIS3DHRegister.whoAmI }
    package var idRegisterName: String { "WHO_AM_I" }
    package var variants: [LIS3DHVariant] { [LIS3DHVariant()] }
    package var accelRangesG: [Int] { LIS3DHScale.accelRangesG }
    package var gyroscope: GyroscopeDescription? { nil }
    /// DS CTRL_REG1 description: 1 Hz (code 1) to 5.376 kHz (code 9 in low-power mode).
    package var rateRangeHz: ClosedRange<Double> { 1...5376 }
    /// OUT_X_L…OUT_Z_H.
    package var sampleBytes: Int { 6 }
    /// FIFO_SRC_REG, then one OUT_X_L burst per entry (DS §5.1).
    package var fifoDrain: FIFODrainForm { .statusThenBursts(statusAgainWhenFull: false) }
    /// I²C fast mode, 400 kHz (DS, I²C timing).
    package var maxBusClockHz: Int { 400_000 }
    package var maxRateHzBelowFastBus: Double? { nil }
    /// DS DocID17530 Rev 2, Table 4: "Zero-g level change vs. temperature" ±0.5 mg/°C (maximum
    /// delta from 25 °C); operating range −40…+85 °C.
    package var zeroGDrift: ZeroGDrift? { ZeroGDrift(tempcoGPerC: Vector3(0.0005, 0.0005, 0.0005), operatingRangeC: 125) }

    package func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try LIS3DH(bus: bus, address: address, clock: clock)
    }
}
