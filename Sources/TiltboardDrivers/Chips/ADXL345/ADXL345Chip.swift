import TiltboardCore

extension ChipKind {
    /// The Analog Devices ADXL345.
    public static let adxl345 = ChipKind(registering: "adxl345")
}

/// The ADXL345's one accepted part (data sheet rev E, "DS").
package struct ADXL345Variant: ChipVariant {
    package init() {}
    package var chipID: UInt8 { ADXL345.deviceID }
    package var part: String { "ADXL345" }
    package var acceptedAsCompatible: Bool { false }
    /// DS Table 19: writable registers 0x1D–0x2A, 0x2C–0x2F, 0x31 and 0x38; power-on values in
    /// `ADXL345Register.powerOnValues`.
    package var registerMap: RegisterMap {
        RegisterMap(
            writable: [0x1D...0x2A, 0x2C...0x2F, 0x31...0x31, 0x38...0x38],
            volatile: ADXL345Register.volatileRegisters,
            powerOnValues: ADXL345Register.powerOnValues.filter { $0.register != ADXL345Register.deviceID },
            readBackMasks: [
                (ADXL345Register.bandwidthRate, 0x1F),
                (ADXL345Register.powerControl, ADXL345PowerControl.verifyMask),
                (ADXL345Register.dataFormat, ADXL345DataFormat.verifyMask),
            ])
    }
    /// OFSX/OFSY/OFSZ (DS Registers 0x1E–0x20): signed bytes, 15.6 mg/LSB.
    package var accelOffsets: OffsetRegisters? {
        OffsetRegisters(x: 0x1E, y: 0x1F, z: 0x20, bytesPerAxis: 1, unitPerLSB: ADXL345Scale.offsetGPerLSB)
    }
    package var gyroOffsets: OffsetRegisters? { nil }
    /// DS "FIFO": 32 entries of 6 bytes, and a 33rd sample in the output registers.
    package var fifo: FIFOGeometry? { FIFOGeometry(capacityBytes: 32 * 6, frameBytes: 6, extraFramesInOutputRegisters: 1) }
    package var temperature: TemperatureFormula? { nil }
    /// THRESH_ACT (0x24, 62.5 mg/LSB), Activity bit 4 of INT_ENABLE (0x2E) and INT_SOURCE (0x30).
    package var motion: MotionInterruptRegisters {
        MotionInterruptRegisters(
            thresholdRegister: ADXL345Register.activityThreshold, thresholdGPerLSB: ADXL345Scale.activityThresholdGPerLSB,
            enableRegister: ADXL345Register.intEnable, enableMask: ADXL345Interrupt.activity.rawValue,
            statusRegister: ADXL345Register.intSource, statusMask: ADXL345Interrupt.activity.rawValue)
    }
}

/// The ADXL345 as the registry knows it.
package struct ADXL345Chip: ChipDescription {
    package init() {}
    package var kind: ChipKind { .adxl345 }
    package var partName: String { "ADXL345" }
    package var idleStateName: String { "standby" }
    /// ALT ADDRESS low → 0x53, high → 0x1D (DS "Serial Communications", I²C).
    package var addresses: [UInt8] { [0x53, 0x1D] }
    package var addressPinName: String { "ALT ADDRESS" }
    package var idRegister: UInt8 { ADXL345Register.deviceID }
    package var idRegisterName: String { "DEVID" }
    package var variants: [ADXL345Variant] { [ADXL345Variant()] }
    /// DS Register 0x31: range code 0…3.
    package var accelRangesG: [Int] { ADXL345Scale.accelRangesG }
    package var gyroscope: GyroscopeDescription? { nil }
    /// DS Table 7: 0.10 Hz (code 0) to 3200 Hz (code 15).
    package var rateRangeHz: ClosedRange<Double> { 0.1...3200 }
    /// DATAX0…DATAZ1 (DS Table 19).
    package var sampleBytes: Int { 6 }
    /// FIFO_STATUS, one DATAX0 burst per entry, FIFO_STATUS again after a full FIFO (DS Register 0x39).
    package var fifoDrain: FIFODrainForm { .statusThenBursts(statusAgainWhenFull: true) }
    /// Fast mode, 400 kHz (DS Table 12).
    package var maxBusClockHz: Int { 400_000 }
    /// At 100 kHz, output rates above 200 Hz are not recommended (DS rev E, p.18).
    package var maxRateHzBelowFastBus: Double? { 200 }
    /// DS rev E, Table 1, "0 g Offset vs. Temperature": ±0.8 mg/°C X/Y, ±4.5 mg/°C Z (typical
    /// figures: the table names no limit, so these are the largest it gives); −40…+85 °C.
    package var zeroGDrift: ZeroGDrift? { ZeroGDrift(tempcoGPerC: Vector3(0.0008, 0.0008, 0.0045), operatingRangeC: 125) }

    package func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try ADXL345(bus: bus, address: address, clock: clock)
    }
}
