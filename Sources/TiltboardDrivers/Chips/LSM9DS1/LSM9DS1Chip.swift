import TiltboardCore

extension ChipKind {
    /// ST's LSM9DS1 (accelerometer and gyroscope), the Raspberry Pi Sense HAT's motion sensor.
    public static let lsm9ds1 = ChipKind(registering: "lsm9ds1")
}

/// The LSM9DS1's one accepted part (data sheet DocID025715 Rev 3, "DS").
package struct LSM9DS1Variant: ChipVariant {
    package init() {}
    package var chipID: UInt8 { LSM9DS1.deviceID }
    package var part: String { LSM9DS1.partName }
    package var acceptedAsCompatible: Bool { false }
    /// DS §6 register address map; bursts walk the registers while CTRL_REG8's IF_ADD_INC is
    /// set (its power-on value; the driver keeps it).
    package var registerMap: RegisterMap {
        RegisterMap(
            writable: LSM9DS1Register.writable,
            volatile: LSM9DS1Register.volatileRegisters,
            powerOnValues: LSM9DS1Register.powerOnValues.filter { $0.register != LSM9DS1Register.whoAmI },
            readBackMasks: [(LSM9DS1Register.control8, ~(LSM9DS1Control8.softwareReset | 0x80))])
    }
    /// None: the part has no offset registers for its outputs.
    package var accelOffsets: OffsetRegisters? { nil }
    package var gyroOffsets: OffsetRegisters? { nil }
    /// DS §3.5: 32 levels, each a gyro and an accelerometer sample (the driver reads them as
    /// one 22-byte burst, `LSM9DS1.burstBytes`, of which 12 are data).
    package var fifo: FIFOGeometry? { FIFOGeometry(capacityBytes: LSM9DS1Scale.fifoDepth * 12, frameBytes: 12) }
    /// DS §4.3: 16 LSB/°C, 25 °C at 0.
    package var temperature: TemperatureFormula? {
        TemperatureFormula(lsbPerC: LSM9DS1Scale.temperatureLSBPerC, offsetC: LSM9DS1Scale.temperatureOffsetC)
    }
    /// The accelerometer's interrupt generator (INT_GEN_CFG_XL 0x06, thresholds 0x07–0x09,
    /// INT_GEN_SRC_XL IA_XL): described for completeness; the driver does not arm it, so
    /// wake-on-motion is not offered on this chip.
    package var motion: MotionInterruptRegisters {
        MotionInterruptRegisters(thresholdRegister: 0x07, thresholdGPerLSB: 2.0 / 128,
                                 enableRegister: 0x06, enableMask: 0x2A,
                                 statusRegister: LSM9DS1Register.intGenSourceXL, statusMask: 0x40,
                                 thresholdRegisterCount: 3)
    }
}

/// The LSM9DS1 as the registry knows it.
package struct LSM9DS1Chip: ChipDescription {
    package init() {}
    package var kind: ChipKind { .lsm9ds1 }
    package var partName: String { LSM9DS1.partName }
    package var idleStateName: String { "power-down" }
    /// SDO_A/G low → 0x6A, high → 0x6B (DS §5.1.1, I²C operation; the Sense HAT wires 0x6A).
    package var addresses: [UInt8] { [0x6A, 0x6B] }
    package var addressPinName: String { "SDO_A/G" }
    package var idRegister: UInt8 { LSM9DS1Register.whoAmI }
    package var idRegisterName: String { "WHO_AM_I" }
    package var variants: [LSM9DS1Variant] { [LSM9DS1Variant()] }
    package var accelRangesG: [Int] { LSM9DS1Scale.accelRangesG }
    package var gyroscope: GyroscopeDescription? { GyroscopeDescription(rangesDps: LSM9DS1Scale.gyroRangesDps) }
    /// ODR_G 14.9 Hz to 952 Hz (DS §7, CTRL_REG1_G).
    package var rateRangeHz: ClosedRange<Double> { 14.9...952 }
    /// OUT_X_L_G through OUT_Z_H_XL in one burst (`LSM9DS1.burstBytes`).
    package var sampleBytes: Int { LSM9DS1.burstBytes }
    /// FIFO_SRC, then one burst per entry as in a plain read.
    package var fifoDrain: FIFODrainForm { .statusThenBursts(statusAgainWhenFull: false) }
    /// I²C fast mode, 400 kHz (DS §4.4.1, I²C timing).
    package var maxBusClockHz: Int { 400_000 }
    package var maxRateHzBelowFastBus: Double? { nil }
    /// The driver does not arm its motion interrupt (yet): `--wake-on-motion` is refused.
    package var offersWakeOnMotion: Bool { false }
    /// The devices the Sense HAT carries beside the LSM9DS1's accelerometer and gyroscope,
    /// named by probe and never read (Raspberry Pi's `rpi-sense` overlay and Sense HAT
    /// documentation: LSM9DS1 magnetometer 0x1C, LPS25H pressure 0x5C, HTS221 humidity 0x5F,
    /// the ATtiny88 driving the LED matrix and joystick at 0x46). 0x1E is the magnetometer's
    /// other address (SDO_M high, DS §5.1.1).
    package var companions: [CompanionDevice] {
        [
            CompanionDevice(address: 0x1C, name: "LSM9DS1 magnetometer (SDO_M low)"),
            CompanionDevice(address: 0x1E, name: "LSM9DS1 magnetometer (SDO_M high)"),
            CompanionDevice(address: 0x46, name: "Sense HAT LED matrix and joystick controller (ATtiny88)"),
            CompanionDevice(address: 0x5C, name: "Sense HAT pressure sensor (LPS25H)"),
            CompanionDevice(address: 0x5F, name: "Sense HAT humidity sensor (HTS221)"),
        ]
    }

    package func makeDriver(bus: any I2CBus, address: UInt8, clock: any MonotonicClock) throws -> any MotionSensor {
        try LSM9DS1(bus: bus, address: address, clock: clock)
    }
}
