/// The LSM9DS1 accelerometer and gyroscope register map (the "A/G" device at 0x6A/0x6B),
/// declared once for the driver and the simulated part. The magnetometer is a separate I²C
/// device (0x1C/0x1E) and is not used.
///
/// Sources: ST's data sheet DocID025715 Rev 3 ("DS": §6 register address map, §7
/// register descriptions, §3.5 FIFO, §4.1 Table 3 mechanical characteristics, Table 5
/// temperature sensor, §5.1.1 I²C operation); the Linux kernel's `st_lsm6dsx_core.c`
/// ("K": the LSM9DS1 entry, WHO_AM_I 0x68, ODR and full-scale fields) and `st_accel_core.c`
/// (the `lsm9ds1-accel` entry the Raspberry Pi's `rpi-sense` overlay binds).
package enum LSM9DS1Register {
    /// INT1_CTRL (DS §7, register description): INT1_IG_G [7], INT_IG_XL [6], INT_FSS5 [5], INT_OVR [4], INT_FTH [3],
    /// INT_Boot [2], INT_DRDY_G [1], INT_DRDY_XL [0].
    package static let int1Control: UInt8 = 0x0C
    /// WHO_AM_I (DS §7, register description, K `wai 0x68`): 0x68 whatever the SDO_A/G pin.
    package static let whoAmI: UInt8 = 0x0F
    /// CTRL_REG1_G (DS §7, register description): ODR_G [7:5], FS_G [4:3], BW_G [1:0]. ODR_G 0 is power-down; with
    /// the gyro on, the accelerometer runs at the gyro's rate (DS §3, operating modes: accelerometer and gyroscope both active).
    package static let control1G: UInt8 = 0x10
    /// CTRL_REG2_G (DS §7, register description): INT_SEL [3:2], OUT_SEL [1:0].
    package static let control2G: UInt8 = 0x11
    /// CTRL_REG3_G (DS §7, register description): LP_mode [7], HP_EN [6], HPCF_G [3:0].
    package static let control3G: UInt8 = 0x12
    /// OUT_TEMP_L/H (DS §7, register description): 16 LSB/°C, 0 at 25 °C (DS §4.3, temperature sensor characteristics).
    package static let outTempL: UInt8 = 0x15
    /// STATUS_REG (DS §7, register description): … TDA [2], GDA [1], XLDA [0].
    package static let status: UInt8 = 0x17
    /// OUT_X_L_G…OUT_Z_H_G (DS §7, register descriptions): the gyro, little-endian two's complement.
    package static let outXLG: UInt8 = 0x18
    /// CTRL_REG4 (DS §7, register description): Zen_G Yen_G Xen_G [5:3] (power-on 0x38), LIR_XL1 [1], 4D_XL1 [0].
    package static let control4: UInt8 = 0x1E
    /// CTRL_REG5_XL (DS §7, register description): DEC [7:6], Zen_XL Yen_XL Xen_XL [5:3] (power-on 0x38).
    package static let control5XL: UInt8 = 0x1F
    /// CTRL_REG6_XL (DS §7, register description): ODR_XL [7:5], FS_XL [4:3], BW_SCAL_ODR [2], BW_XL [1:0].
    package static let control6XL: UInt8 = 0x20
    /// CTRL_REG7_XL (DS §7, register description): HR [7], DCF [6:5], FDS [2], HPIS1 [0].
    package static let control7XL: UInt8 = 0x21
    /// CTRL_REG8 (DS §7, register description): BOOT [7], BDU [6], H_LACTIVE [5], PP_OD [4], SIM [3], IF_ADD_INC [2]
    /// (power-on 0x04: bursts walk the registers), BLE [1], SW_RESET [0] (self-clearing).
    package static let control8: UInt8 = 0x22
    /// CTRL_REG9 (DS §7, register description): SLEEP_G [6], FIFO_TEMP_EN [4], DRDY_mask_bit [3], I2C_DISABLE [2],
    /// FIFO_EN [1], STOP_ON_FTH [0].
    package static let control9: UInt8 = 0x23
    /// CTRL_REG10 (DS §7, register description): ST_G [2], ST_XL [0].
    package static let control10: UInt8 = 0x24
    /// INT_GEN_SRC_XL (DS §7, register description): IA_XL [6], ZH ZL YH YL XH XL [5:0]; reading it clears a latch.
    package static let intGenSourceXL: UInt8 = 0x26
    /// OUT_X_L_XL…OUT_Z_H_XL (DS §7, register descriptions): the accelerometer, little-endian two's complement.
    package static let outXLXL: UInt8 = 0x28
    /// FIFO_CTRL (DS §7, register description): FMODE [7:5], FTH [4:0].
    package static let fifoControl: UInt8 = 0x2E
    /// FIFO_SRC (DS §7, register description): FTH [7], OVRN [6], FSS [5:0] (unread samples, 0…32).
    package static let fifoSource: UInt8 = 0x2F

    /// The registers that power on (and SW_RESET) at something other than 0x00 (DS §6, register address map):
    /// WHO_AM_I, CTRL_REG4 and CTRL_REG5_XL 0x38 (every axis enabled), CTRL_REG8 0x04 (IF_ADD_INC).
    package static let powerOnValues: [(register: UInt8, value: UInt8)] = [
        (whoAmI, LSM9DS1.deviceID), (control4, 0x38), (control5XL, 0x38), (control8, 0x04),
    ]

    /// Registers a write changes (DS §6, register address map, type r/w); every other one is read-only or reserved.
    package static let writable: [ClosedRange<UInt8>] = [
        0x04...0x0D,  // ACT_THS, ACT_DUR, INT_GEN_CFG_XL, INT_GEN_THS_X/Y/Z_XL, INT_GEN_DUR_XL, REFERENCE_G, INT1_CTRL, INT2_CTRL
        0x10...0x13,  // CTRL_REG1_G…CTRL_REG3_G, ORIENT_CFG_G
        0x1E...0x24,  // CTRL_REG4…CTRL_REG10
        0x2E...0x2E,  // FIFO_CTRL
        0x30...0x37,  // INT_GEN_CFG_G, INT_GEN_THS_*_G, INT_GEN_DUR_G
    ]

    /// Registers whose contents change without a write: never cached or verified.
    package static let volatileRegisters: [ClosedRange<UInt8>] = [
        0x14...0x1D,  // INT_GEN_SRC_G, OUT_TEMP, STATUS_REG, OUT_X/Y/Z_G
        0x26...0x2D,  // INT_GEN_SRC_XL, STATUS_REG, OUT_X/Y/Z_XL
        0x2F...0x2F,  // FIFO_SRC
    ]
}

/// CTRL_REG8 bits (DS §7, register description).
package enum LSM9DS1Control8 {
    /// BDU: output registers not updated until both bytes of an axis were read.
    package static let blockDataUpdate: UInt8 = 0x40
    /// IF_ADD_INC: the register address advances through a multi-byte transfer.
    package static let autoIncrement: UInt8 = 0x04
    /// SW_RESET: back to the power-on values; clears itself (DS §7, CTRL_REG8).
    package static let softwareReset: UInt8 = 0x01
}

/// CTRL_REG9 bits (DS §7, register description).
package enum LSM9DS1Control9 {
    /// FIFO_EN: samples go through the FIFO.
    package static let fifoEnable: UInt8 = 0x02
}

/// FIFO_CTRL FMODE values (DS §7, register description, §3.5).
package enum LSM9DS1FIFOMode: UInt8, Sendable {
    /// Bypass: the FIFO is off and empty (writing it resets the FIFO).
    case bypass = 0x00
    /// FIFO mode: collects until full, then stops.
    case fifo = 0x20
    /// Continuous: the newest 32 samples, the oldest overwritten (OVRN set).
    case continuous = 0xC0
}

/// FIFO_SRC bits (DS §7, register description).
package enum LSM9DS1FIFOSource {
    package static let threshold: UInt8 = 0x80
    package static let overrun: UInt8 = 0x40
    /// FSS: unread samples, 0…32.
    package static let levelMask: UInt8 = 0x3F
}

/// Scales, rates and timings (DS §4.1 Table 3; §7, CTRL_REG1_G and CTRL_REG6_XL).
package enum LSM9DS1Scale {
    /// Accelerometer ranges, g, and FS_XL's code for each (DS §7, CTRL_REG6_XL: 00 ±2 g, 01 ±16 g,
    /// 10 ±4 g, 11 ±8 g).
    package static let accelRangesG: [Int] = [2, 4, 8, 16]
    package static let accelRangeCodes: [UInt8] = [0, 2, 3, 1]
    /// Linear acceleration sensitivity, mg/LSB (DS Table 3 LA_So): 0.061, 0.122, 0.244, 0.732.
    package static let accelMilliGPerLSB: [Double] = [0.061, 0.122, 0.244, 0.732]
    /// Gyro ranges, °/s, and FS_G's code for each (DS §7, CTRL_REG1_G: 00 245, 01 500, 11 2000; 10 n/a).
    package static let gyroRangesDps: [Int] = [245, 500, 2000]
    package static let gyroRangeCodes: [UInt8] = [0, 1, 3]
    /// Angular rate sensitivity, m°/s per LSB (DS Table 3 G_So): 8.75, 17.50, 70.
    package static let gyroMilliDpsPerLSB: [Double] = [8.75, 17.5, 70]
    /// Gyro (and, with it on, accelerometer) output rates by ODR_G code 1…6, Hz (DS §7, CTRL_REG1_G ODR_G);
    /// code 0 is power-down, 7 not available.
    package static let ratesHz: [Double] = [14.9, 59.5, 119, 238, 476, 952]
    /// Temperature: 16 LSB/°C (DS §4.3, temperature sensor characteristics), 25 °C at 0 (ST's `lsm9ds1_from_lsb_to_celsius`).
    package static let temperatureLSBPerC = 16.0
    package static let temperatureOffsetC = 25.0
    /// FIFO depth, samples of gyro and accelerometer each (DS §3.5: "32 levels").
    package static let fifoDepth = 32
    /// What the driver waits after SW_RESET before writing again. The data sheet gives no
    /// figure for SW_RESET; the boot procedure (BOOT) is the one it describes, and 10 ms covers
    /// it (ST's `lsm9ds1_reg.c` example waits for the bit to clear).
    package static let resetNanoseconds: UInt64 = 10_000_000
    /// Gyro turn-on: the data sheet (Table 3 note) asks to discard the first samples after
    /// power-up; the driver waits this many output periods before the first direct read.
    package static let settlingPeriods = 3

    /// The ODR_G code (1…6) and rate nearest to `rate`.
    package static func nearestRate(_ rate: Double) -> (code: UInt8, hz: Double) {
        var best = 0
        for i in ratesHz.indices where Swift.abs(ratesHz[i] - rate) < Swift.abs(ratesHz[best] - rate) { best = i }
        return (UInt8(best + 1), ratesHz[best])
    }

    /// The rate of ODR_G code `code`, nil for power-down or the unused code.
    package static func rateHz(code: UInt8) -> Double? {
        code >= 1 && code <= 6 ? ratesHz[Int(code) - 1] : nil
    }

    /// The accelerometer range index of FS_XL code `code`.
    /// (A switch, not a table search: the simulated part calls it per sample, and a generic search
    /// allocates in a debug build.)
    package static func accelRangeIndex(code: UInt8) -> Int {
        switch code & 0x03 { case 0: return 0; case 2: return 1; case 3: return 2; default: return 3 }
    }

    /// The gyro range index of FS_G code `code` (the unused code 10 reads as 245 °/s here).
    package static func gyroRangeIndex(code: UInt8) -> Int {
        switch code & 0x03 { case 1: return 1; case 3: return 2; default: return 0 }
    }
}
