import TiltboardCore

extension ChipKind {
    /// ST's LIS3DH.
    public static let lis3dh = ChipKind(registering: "lis3dh")
}

/// The LIS3DH's one accepted part (data sheet DocID17530 Rev 2, "DS").
public struct LIS3DHVariant: ChipVariant {
    public init() {}
    public var chipID: UInt8 { LIS3DH.deviceID }
    public var part: String { LIS3DH.partName }
    public var compatibilityNote: String? { nil }
    /// DS register address map; a multi-byte transfer walks the registers only with bit 7 of the
    /// sub-address.
    public var registerMap: RegisterMap {
        RegisterMap(
            autoIncrement: .whenSubAddressBit(LIS3DHRegister.autoIncrement),
            writable: LIS3DHRegister.writable,
            volatile: LIS3DHRegister.volatileRegisters,
            powerOnValues: LIS3DHRegister.powerOnValues.filter { $0.register != LIS3DHRegister.whoAmI },
            readBackMasks: [(LIS3DHRegister.control5, ~LIS3DHControl5.boot)])
    }
    /// None: the part has no offset registers.
    public var accelOffsets: OffsetRegisters? { nil }
    public var gyroOffsets: OffsetRegisters? { nil }
    /// DS §5.1: 32 levels of X, Y, Z.
    public var fifo: FIFOGeometry? { FIFOGeometry(capacityBytes: LIS3DHScale.fifoDepth * 6, frameBytes: 6) }
    /// The temperature path (DS Table 5: 1 digit/°C through the auxiliary ADC) has no specified
    /// offset: it tells a change of temperature, not a temperature, so none is reported.
    public var temperature: TemperatureFormula? { nil }
    /// Interrupt generator 1: INT1_THS (16 mg/LSB at ±2 g), X/Y/Z high events in INT1_CFG, IA in INT1_SRC.
    public var motion: MotionInterruptRegisters {
        MotionInterruptRegisters(
            thresholdRegister: LIS3DHRegister.int1Threshold, thresholdGPerLSB: LIS3DHScale.thresholdGPerLSB[0],
            enableRegister: LIS3DHRegister.int1Config, enableMask: LIS3DHInterrupt.anyAxisHigh,
            statusRegister: LIS3DHRegister.int1Source, statusMask: LIS3DHInterrupt.active)
    }
}

/// The LIS3DH as the registry knows it.
public struct LIS3DHChip: ChipDescription {
    public init() {}
    public var kind: ChipKind { .lis3dh }
    public var partName: String { LIS3DH.partName }
    public var idleStateName: String { "power-down" }
    /// SDO/SA0 low → 0x18, high → 0x19 (DS, I²C operation).
    public var addresses: [UInt8] { [0x18, 0x19] }
    public var addressPinName: String { "SDO/SA0" }
    public var idRegister: UInt8 { LIS3DHRegister.whoAmI }
    public var idRegisterName: String { "WHO_AM_I" }
    public var variants: [LIS3DHVariant] { [LIS3DHVariant()] }
    public var accelRangesG: [Int] { LIS3DHScale.accelRangesG }
    public var gyroscope: GyroscopeDescription? { nil }
    /// DS CTRL_REG1 description: 1 Hz (code 1) to 5.376 kHz (code 9 in low-power mode).
    public var rateRangeHz: ClosedRange<Double> { 1...5376 }
    /// OUT_X_L…OUT_Z_H.
    public var sampleBytes: Int { 6 }
    /// I²C fast mode, 400 kHz (DS, I²C timing).
    public var maxBusClockHz: Int { 400_000 }
    public var maxRateHzBelowFastBus: Double? { nil }
    /// DS DocID17530 Rev 2, Table 4: "Zero-g level change vs. temperature" ±0.5 mg/°C (maximum
    /// delta from 25 °C); operating range −40…+85 °C.
    public var zeroGDrift: ZeroGDrift? { ZeroGDrift(tempcoGPerC: Vector3(0.0005, 0.0005, 0.0005), operatingRangeC: 125) }

    public func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try LIS3DH(bus: bus, address: address, clock: clock)
    }
}
