/// The ICM-20948 register file: four user banks of 128 registers, switched by REG_BANK_SEL
/// (0x7F, present in every bank), declared once for the driver and the simulated part.
///
/// Source: TDK InvenSense ICM-20948 data sheet DS-000189 rev 1.3 ("DS": §7 register map for
/// user banks 0–3, §8 user bank 0 and §10 user bank 2 register descriptions, §4 FIFO and
/// clocking, Table 1 and Table 2 gyroscope and accelerometer specifications). Each
/// register's bank is in its name: `ICM20948Bank0`, `ICM20948Bank2`.
package enum ICM20948Bank0 {
    /// WHO_AM_I (DS §8, WHO_AM_I): 0xEA.
    package static let whoAmI: UInt8 = 0x00
    /// USER_CTRL (DS §8): DMP_EN [7], FIFO_EN [6], I2C_MST_EN [5], I2C_IF_DIS [4], DMP_RST [3],
    /// SRAM_RST [2], I2C_MST_RST [1].
    package static let userControl: UInt8 = 0x03
    /// LP_CONFIG (DS §8): I2C_MST_CYCLE [6] (power-on 0x40), ACCEL_CYCLE [5], GYRO_CYCLE [4].
    package static let lowPowerConfig: UInt8 = 0x05
    /// PWR_MGMT_1 (DS §8): DEVICE_RESET [7] (self-clearing), SLEEP [6], LP_EN [5], TEMP_DIS [3],
    /// CLKSEL [2:0]; powers on at 0x41, asleep with the clock auto-selected.
    package static let powerManagement1: UInt8 = 0x06
    /// PWR_MGMT_2 (DS §8): DISABLE_ACCEL [5:3], DISABLE_GYRO [2:0].
    package static let powerManagement2: UInt8 = 0x07
    /// INT_PIN_CFG (DS §8): INT1_ACTL [7], INT1_OPEN [6], INT1_LATCH_EN [5], INT_ANYRD_2CLEAR [4].
    package static let intPinConfig: UInt8 = 0x0F
    /// INT_ENABLE (DS §8): REG_WOF_EN [7], WOM_INT_EN [3], PLL_RDY_EN [2], DMP_INT1_EN [1], I2C_MST_INT_EN [0].
    package static let intEnable: UInt8 = 0x10
    /// INT_ENABLE_1 (DS §8): RAW_DATA_0_RDY_EN [0].
    package static let intEnable1: UInt8 = 0x11
    /// INT_STATUS (DS §8): WOM_INT [3], PLL_RDY_INT [2], DMP_INT1 [1], I2C_MST_INT [0].
    package static let intStatus: UInt8 = 0x19
    /// INT_STATUS_1 (DS §8): RAW_DATA_0_RDY_INT [0].
    package static let intStatus1: UInt8 = 0x1A
    /// INT_STATUS_2 (DS §8): FIFO_OVERFLOW_INT [4:0].
    package static let intStatus2: UInt8 = 0x1B
    /// ACCEL_XOUT_H…ACCEL_ZOUT_L, GYRO_XOUT_H…GYRO_ZOUT_L, TEMP_OUT_H/L (DS §8): big-endian
    /// two's complement, in that order, 14 bytes from here.
    package static let accelXOutH: UInt8 = 0x2D
    /// GYRO_XOUT_H (DS §8).
    package static let gyroXOutH: UInt8 = 0x33
    /// TEMP_OUT_H (DS §8).
    package static let tempOutH: UInt8 = 0x39
    /// FIFO_EN_2 (DS §8): ACCEL_FIFO_EN [4], GYRO_Z/Y/X_FIFO_EN [3:1], TEMP_FIFO_EN [0].
    package static let fifoEnable2: UInt8 = 0x67
    /// FIFO_RST (DS §8): FIFO_RESET [4:0]; asserting then de-asserting it empties the FIFO.
    package static let fifoReset: UInt8 = 0x68
    /// FIFO_MODE (DS §8): 0 stream (the oldest bytes overwritten when full), 1 snapshot.
    package static let fifoMode: UInt8 = 0x69
    /// FIFO_COUNTH [4:0] / FIFO_COUNTL (DS §8): bytes in the FIFO, big-endian; reading the
    /// high byte latches both.
    package static let fifoCountH: UInt8 = 0x70
    /// FIFO_R_W (DS §8): the FIFO's data port; a burst keeps reading it.
    package static let fifoData: UInt8 = 0x72
    /// DATA_RDY_STATUS (DS §8).
    package static let dataReadyStatus: UInt8 = 0x74
    /// REG_BANK_SEL (DS §8, present at 0x7F in every bank): USER_BANK [5:4].
    package static let bankSelect: UInt8 = 0x7F
}

/// User bank 2: the sensors' rates, ranges and filters (DS §10).
package enum ICM20948Bank2 {
    /// GYRO_SMPLRT_DIV (DS §10): gyro ODR = 1.1 kHz / (1 + value) (the DS rounds the 1.125 kHz
    /// internal rate the accelerometer's formula names).
    package static let gyroSampleRateDivider: UInt8 = 0x00
    /// GYRO_CONFIG_1 (DS §10): GYRO_DLPFCFG [5:3], GYRO_FS_SEL [2:1], GYRO_FCHOICE [0]; power-on 0x01.
    package static let gyroConfig1: UInt8 = 0x01
    /// ACCEL_SMPLRT_DIV_1 [3:0] / _2 [7:0] (DS §10): accel ODR = 1.125 kHz / (1 + value), 12 bits.
    package static let accelSampleRateDivider1: UInt8 = 0x10
    /// ACCEL_INTEL_CTRL (DS §10): ACCEL_INTEL_EN [1], ACCEL_INTEL_MODE_INT [0].
    package static let accelIntelControl: UInt8 = 0x12
    /// ACCEL_WOM_THR (DS §10): wake-on-motion threshold, 4 mg/LSB.
    package static let accelWakeOnMotionThreshold: UInt8 = 0x13
    /// ACCEL_CONFIG (DS §10): ACCEL_DLPFCFG [5:3], ACCEL_FS_SEL [2:1], ACCEL_FCHOICE [0]; power-on 0x01.
    package static let accelConfig: UInt8 = 0x14
}

/// The register map, bank by bank (DS §7).
package enum ICM20948Map {
    /// The USER_BANK field's position in REG_BANK_SEL.
    package static let bankShift: UInt8 = 4

    /// Bank 0: writable but for WHO_AM_I, the status, data and count registers; powers on at
    /// 0x00 but LP_CONFIG 0x40 and PWR_MGMT_1 0x41 (DS §7 reset values).
    package static let bank0 = RegisterMap(
        writable: [0x03...0x03, 0x05...0x07, 0x0F...0x13, 0x28...0x29, 0x66...0x69, 0x72...0x72, 0x76...0x76, 0x7F...0x7F],
        volatile: [0x17...0x17, 0x19...0x1C, 0x2D...0x52, 0x70...0x72, 0x74...0x74],
        ports: [ICM20948Bank0.fifoData],
        powerOnValues: [(ICM20948Bank0.lowPowerConfig, 0x40), (ICM20948Bank0.powerManagement1, 0x41)],
        readBackMasks: [(ICM20948Bank0.powerManagement1, 0x7F), (ICM20948Bank0.fifoReset, 0x1F),
                        (ICM20948Bank0.userControl, 0xF3)])
    /// Bank 1: self-test values, accelerometer offsets, TIMEBASE_CORRECTION_PLL (DS §9).
    package static let bank1 = RegisterMap(writable: [0x02...0x04, 0x0E...0x10, 0x14...0x1B, 0x28...0x28, 0x7F...0x7F],
                                          volatile: [])
    /// Bank 2: rates, ranges, filters, gyro offsets, wake-on-motion (DS §10); GYRO_CONFIG_1
    /// and ACCEL_CONFIG power on at 0x01 (FCHOICE: the low-pass filter on).
    package static let bank2 = RegisterMap(
        writable: [0x00...0x09, 0x10...0x15, 0x52...0x54, 0x7F...0x7F],
        volatile: [],
        powerOnValues: [(ICM20948Bank2.gyroConfig1, 0x01), (ICM20948Bank2.accelConfig, 0x01)])
    /// Bank 3: the auxiliary I²C master (DS §11), not used.
    package static let bank3 = RegisterMap(writable: [0x00...0x17, 0x7F...0x7F], volatile: [])

    /// The whole file: bank 0 with banks 1–3 behind REG_BANK_SEL.
    package static var registerMap: RegisterMap {
        var map = bank0
        map.banks = RegisterBanks(selectRegister: ICM20948Bank0.bankSelect, shift: bankShift, others: [bank1, bank2, bank3])
        return map
    }
}

/// Bits of bank 0's control registers (DS §8).
package enum ICM20948Bits {
    /// PWR_MGMT_1 DEVICE_RESET.
    package static let deviceReset: UInt8 = 0x80
    /// PWR_MGMT_1 SLEEP.
    package static let sleep: UInt8 = 0x40
    /// PWR_MGMT_1 CLKSEL 1: the best clock available (the PLL with the gyro on; DS §4.14).
    package static let clockAuto: UInt8 = 0x01
    /// USER_CTRL FIFO_EN.
    package static let userFIFOEnable: UInt8 = 0x40
    /// FIFO_EN_2: accelerometer, gyro X, Y, Z and temperature into the FIFO.
    package static let fifoAccelGyroTemp: UInt8 = 0x1F
    /// FIFO_RST: every FIFO reset bit.
    package static let fifoResetAll: UInt8 = 0x1F
    /// INT_STATUS_2: every FIFO overflow bit.
    package static let fifoOverflowMask: UInt8 = 0x1F
}

/// Scales, rates and timings (DS Table 1, Table 2, §10).
package enum ICM20948Scale {
    /// ACCEL_FS_SEL 0…3: ±2/4/8/16 g at 16384/8192/4096/2048 LSB/g (DS Table 2).
    package static let accelRangesG: [Int] = [2, 4, 8, 16]
    package static let accelLSBPerG: [Double] = [16384, 8192, 4096, 2048]
    /// GYRO_FS_SEL 0…3: ±250/500/1000/2000 °/s at 131/65.5/32.8/16.4 LSB per °/s (DS Table 1).
    package static let gyroRangesDps: [Int] = [250, 500, 1000, 2000]
    package static let gyroLSBPerDps: [Double] = [131, 65.5, 32.8, 16.4]
    /// The internal rate the sample-rate dividers divide, Hz (DS §10, ACCEL_SMPLRT_DIV).
    package static let baseRateHz = 1125.0
    /// Temperature: °C = raw / 333.87 + 21 (DS §8, TEMP_OUT; Table 3 sensitivity 333.87 LSB/°C,
    /// room-temperature offset 21 °C).
    package static let temperatureLSBPerC = 333.87
    package static let temperatureOffsetC = 21.0
    /// The FIFO: 512 bytes (DS §4, FIFO).
    package static let fifoBytes = 512
    /// A FIFO frame as `configure` enables it: accel (6), gyro (6), temperature (2), in register order.
    package static let fifoFrameBytes = 14
    /// DEVICE_RESET, then waking: the driver waits 100 ms and 10 ms, as for its MPU relatives
    /// (the DS gives the start-up times of Table 1 and 2: gyro 35 ms, accel 20 ms from sleep).
    package static let resetNanoseconds: UInt64 = 100_000_000
    package static let wakeNanoseconds: UInt64 = 40_000_000
    /// The low-pass setting (GYRO_DLPFCFG and ACCEL_DLPFCFG, with FCHOICE 1) and its 3 dB
    /// bandwidth for the gyro, Hz (DS §10, GYRO_CONFIG_1 table): codes 0–6.
    package static let gyroBandwidthHz: [Double] = [196.6, 151.8, 119.5, 51.2, 23.9, 11.6, 5.7]
    /// The accelerometer's 3 dB bandwidth for the same codes, Hz (DS §10, ACCEL_CONFIG table).
    package static let accelBandwidthHz: [Double] = [246.0, 246.0, 111.4, 50.4, 23.9, 11.5, 5.7]

    /// The divider (0…255, the gyro's register width) for the rate nearest `rate`.
    package static func divider(forRateHz rate: Double) -> UInt8 {
        UInt8(Swift.min(Swift.max((baseRateHz / rate - 1).rounded(), 0), 255))
    }

    /// The low-pass code whose gyro bandwidth is the widest at or under half the rate (code 6,
    /// the narrowest, below that).
    package static func lowPassCode(forRateHz rate: Double) -> UInt8 {
        for (i, bandwidth) in gyroBandwidthHz.enumerated() where bandwidth <= rate / 2 { return UInt8(i) }
        return 6
    }
}
