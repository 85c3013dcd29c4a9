/// A WHO_AM_I value the MPU-6050 driver accepts, and how that part differs, as data
/// (each part's product specification and register map; the kernel's `inv_mpu_iio.h` /
/// `inv_mpu_core.c`, "K").
///
/// Boards sold as MPU-6050 often carry an MPU-6500-family die or an ICM-20689; Linux accepts
/// any known ID with a warning, and so does this driver, programming each part as its own
/// register map says. The simulated part is built from the same values.
package struct MPU6050Variant: ChipVariant, Equatable {
    /// How the part's motion interrupt is armed.
    package enum MotionEngine: Sendable, Equatable {
        /// MPU-6050: MOT_THR/MOT_DUR/MOT_DETECT_CTRL behind the accel high-pass (ACCEL_CONFIG[2:0]).
        case motionDetect
        /// MPU-6500 family and ICM-20689: wake-on-motion, ACCEL_INTEL_CTRL (0x69) with
        /// ACCEL_INTEL_EN | ACCEL_INTEL_MODE, each sample compared with the previous one.
        case wakeOnMotion
    }

    package var chipID: UInt8
    package var part: String
    package var acceptedAsCompatible: Bool
    package var registerMap: RegisterMap
    package var accelOffsets: OffsetRegisters?
    package var gyroOffsets: OffsetRegisters?
    package var fifo: FIFOGeometry?
    package var temperature: TemperatureFormula?
    package var motion: MotionInterruptRegisters
    /// How `motion` is armed.
    package var motionEngine: MotionEngine
    /// ACCEL_CONFIG2 (0x1D, the accelerometer's own low-pass), nil where the register does not
    /// exist (MPU-6050: 0x1D is the undocumented FF_THR).
    package var accelFilterRegister: UInt8?
    /// Bits `configure` sets in ACCEL_CONFIG2 besides the filter: the ICM-20689's FIFO_SIZE
    /// [7:6] = 3, 4 KiB (its FIFO is 512 bytes otherwise; DS20689 Register 29; the kernel's
    /// `inv_mpu6050_set_lpf_regs` ORs in `INV_ICM20689_BITS_FIFO_SIZE_MAX` 0xC0); 0 elsewhere.
    package var fifoSizeBits: UInt8
    /// Gyro start-up time after wake, ns (K `INV_MPU6050_GYRO_STARTUP_TIME` 60 ms,
    /// `INV_MPU6500_GYRO_STARTUP_TIME` 70 ms).
    package var gyroStartUpNanoseconds: UInt64

    package static func == (a: Self, b: Self) -> Bool { a.chipID == b.chipID && a.part == b.part }
}

extension MPU6050Variant {
    /// The MPU-6050 register file (RM-MPU-6000A rev 4.2): writable but for I2C_MST_STATUS, the
    /// status and data registers, FIFO_COUNT and WHO_AM_I; nothing answers past 0x75. Every
    /// register powers on (or DEVICE_RESETs) at 0x00 but PWR_MGMT_1, 0x40 = asleep on the internal
    /// oscillator, and WHO_AM_I (RM p.8); the factory-trimmed 0x00–0x10 (self-test and trim values, outside the public register map) are each part's own.
    static let mpu6050Map = RegisterMap(
        writable: [0x00...0x35, 0x37...0x39, 0x62...0x71, 0x74...0x74],
        volatile: MPU6050Register.volatileRegisters,
        ports: [MPU6050Register.fifoData],
        powerOnValues: [(MPU6050Register.powerManagement1, 0x40)],
        readBackMasks: [
            (MPU6050Register.config, 0x3F), (MPU6050Register.gyroConfig, 0xF8),
            (MPU6050Register.accelConfig, 0xF8),
            (MPU6050Register.userControl, MPU6050UserControl.verifyMask),
            (MPU6050Register.powerManagement1, MPU6050PowerManagement1.verifyMask),
        ],
        keptBits: [(0x07, 0x01), (0x09, 0x01), (0x0B, 0x01)])

    /// The MPU-6500 family / ICM-20689 register file (MPU-9250 RM rev 1.4 p.7–8 register map):
    /// the 6050's, with ACCEL_CONFIG2 (0x1D) and the accel offsets at 0x77–0x7E (bit 0 of each
    /// low byte reserved), PWR_MGMT_1 powering on at 0x01 (RM rev 1.4 p.8: "reset value 0x01";
    /// ICM-20689 DS rev 1.0 §8: 0x40).
    static func mpu6500Map(powerOn power: UInt8, accelConfig2Mask: UInt8 = 0x0F) -> RegisterMap {
        var map = mpu6050Map
        map.writable += [0x77...0x78, 0x7A...0x7B, 0x7D...0x7E]
        map.powerOnValues = [(MPU6050Register.powerManagement1, power)]
        map.readBackMasks.append((MPU6500Register.accelConfig2, accelConfig2Mask))
        map.keptBits = [(0x78, 0x01), (0x7B, 0x01), (0x7E, 0x01)]
        return map
    }

    /// 6050 accel offsets (XA/YA/ZA_OFFS_H 0x06/0x08/0x0A, offset app note): ±16 g format,
    /// 2048 LSB/g, bit 0 of the low byte reserved.
    static let mpu6050AccelOffsets = OffsetRegisters(
        x: 0x06, y: 0x08, z: 0x0A, bytesPerAxis: 2, unitPerLSB: 1 / MPU6050Scale.accelOffsetLSBPerG, reservedMask: 1)
    /// 6500-family / ICM-20689 accel offsets (MPU-9250 RM rev 1.4 p.31: XA_OFFSET_H 0x77,
    /// YA 0x7A, ZA 0x7D, "15 bit, 0.98-mg steps", bit 0 reserved: three words 3 registers apart,
    /// which the kernel's one base address and 2-byte stride would not give).
    static let mpu6500AccelOffsets = OffsetRegisters(
        x: 0x77, y: 0x7A, z: 0x7D, bytesPerAxis: 2, unitPerLSB: 1 / MPU6050Scale.accelOffsetLSBPerG, reservedMask: 1)
    /// Gyro offsets XG/YG/ZG_OFFS_USR 0x13–0x18 on every variant (MPU-9250 RM p.11): ±1000 °/s format.
    static let gyroOffsets = OffsetRegisters(
        x: 0x13, y: 0x15, z: 0x17, bytesPerAxis: 2, unitPerLSB: 1 / MPU6050Scale.gyroOffsetLSBPerDps)

    /// 6050 motion: MOT_THR (0x1F) at 32 mg/LSB, MOT_EN / MOT_INT bit 6 (RM 4.0 Registers 31, 56, 58).
    static let mpu6050Motion = MotionInterruptRegisters(
        thresholdRegister: MPU6050Register.motionThreshold, thresholdGPerLSB: MPU6050Scale.motionThresholdGPerLSB,
        enableRegister: MPU6050Register.intEnable, enableMask: 0x40,
        statusRegister: MPU6050Register.intStatus, statusMask: 0x40)
    /// 6500 family: WOM_THR 0x1F, 4 mg/LSB (MPU-9250 RM rev 1.4 p.15, "0 to 1020 mg"), WOM_EN /
    /// WOM_INT bit 6 of INT_ENABLE / INT_STATUS (p.29–30; K `INV_MPU6500_BIT_WOM_INT_EN BIT(6)`).
    static let mpu6500Motion = MotionInterruptRegisters(
        thresholdRegister: MPU6500Register.wakeOnMotionThreshold, thresholdGPerLSB: MPU6500Scale.wakeOnMotionGPerLSB,
        enableRegister: MPU6050Register.intEnable, enableMask: 0x40,
        statusRegister: MPU6050Register.intStatus, statusMask: 0x40, thresholdStepG: MPU6500Scale.wakeThresholdStepG)
    /// ICM-20689: ACCEL_WOM_X/Y/Z_THR 0x20–0x22, 4 mg/LSB, WOM_X/Y/Z_INT_EN bits 7:5 of INT_ENABLE
    /// and WOM_X/Y/Z_INT bits 7:5 of INT_STATUS (ICM-20689 DS rev 1.0 registers 32–34, 56, 58;
    /// K `INV_ICM20609_REG_ACCEL_WOM_X_THR 0x20`, `INV_ICM20608_BIT_WOM_INT_EN`).
    static let icm20689Motion = MotionInterruptRegisters(
        thresholdRegister: MPU6500Register.icmWakeOnMotionXThreshold, thresholdGPerLSB: MPU6500Scale.wakeOnMotionGPerLSB,
        enableRegister: MPU6050Register.intEnable, enableMask: 0xE0,
        statusRegister: MPU6050Register.intStatus, statusMask: 0xE0, thresholdRegisterCount: 3,
        thresholdStepG: MPU6500Scale.wakeThresholdStepG)

    /// The genuine part: FIFO 1024 B (K hw_info `fifo_size = 1024`), raw/340 + 36.53 °C (RM;
    /// K offset 12420, scale 2.941176 m°C/LSB).
    package static let mpu6050 = MPU6050Variant(
        chipID: 0x68, part: "MPU-6050", acceptedAsCompatible: false, registerMap: mpu6050Map,
        accelOffsets: mpu6050AccelOffsets, gyroOffsets: gyroOffsets,
        fifo: FIFOGeometry(capacityBytes: 1024, frameBytes: MPU6050.fifoFrameBytes),
        temperature: TemperatureFormula(lsbPerC: MPU6050Scale.temperatureLSBPerC, offsetC: MPU6050Scale.temperatureOffsetC),
        motion: mpu6050Motion, motionEngine: .motionDetect, accelFilterRegister: nil, fifoSizeBits: 0,
        gyroStartUpNanoseconds: 60_000_000)

    /// The 6500 family: FIFO 512 B (K hw_info MPU6500/9250/9255 `fifo_size = 512`); temperature
    /// K `INV_MPU6500_TEMP_OFFSET 7011`, `INV_MPU6500_TEMP_SCALE 2995178` n°C/LSB: (raw + 7011) ×
    /// 2.995178 m°C = raw / 333.87 + 21 °C (MPU-9250 RM p.33: "RoomTemp_Offset 21 °C, 333.87 LSB/°C").
    static func mpu6500Family(_ id: UInt8, _ part: String) -> MPU6050Variant {
        MPU6050Variant(
            chipID: id, part: part, acceptedAsCompatible: true, registerMap: mpu6500Map(powerOn: 0x01),
            accelOffsets: mpu6500AccelOffsets, gyroOffsets: gyroOffsets,
            fifo: FIFOGeometry(capacityBytes: 512, frameBytes: MPU6050.fifoFrameBytes),
            temperature: TemperatureFormula(lsbPerC: 333.87, offsetC: 21),
            motion: mpu6500Motion, motionEngine: .wakeOnMotion, accelFilterRegister: MPU6500Register.accelConfig2,
            fifoSizeBits: 0, gyroStartUpNanoseconds: 70_000_000)
    }

    /// The ICM-20689 (K: WHO_AM_I 0x98): 6500-style map with FIFO_SIZE in ACCEL_CONFIG2, FIFO 4 KiB (K hw_info `fifo_size = 4 * 1024`),
    /// temperature K `INV_ICM20608_TEMP_OFFSET 8170`, `INV_ICM20608_TEMP_SCALE 3059976`: (raw + 8170)
    /// × 3.059976 m°C = raw / 326.8 + 25 °C (ICM-20689 DS rev 1.0 §3.4 "326.8 LSB/°C", 25 °C offset).
    static let icm20689 = MPU6050Variant(
        chipID: 0x98, part: "ICM-20689", acceptedAsCompatible: true, registerMap: mpu6500Map(powerOn: 0x40, accelConfig2Mask: 0xCF),
        accelOffsets: mpu6500AccelOffsets, gyroOffsets: gyroOffsets,
        fifo: FIFOGeometry(capacityBytes: 4096, frameBytes: MPU6050.fifoFrameBytes),
        temperature: TemperatureFormula(lsbPerC: 326.8, offsetC: 25),
        motion: icm20689Motion, motionEngine: .wakeOnMotion, accelFilterRegister: MPU6500Register.accelConfig2,
        fifoSizeBits: 0xC0, gyroStartUpNanoseconds: 70_000_000)

    /// An unnamed clone sold as an MPU-6050: treated as the 6050 register layout it is sold as.
    static func clone(_ id: UInt8, _ part: String) -> MPU6050Variant {
        var v = mpu6050
        v.chipID = id; v.part = part; v.acceptedAsCompatible = true
        return v
    }

    /// Every accepted WHO_AM_I, genuine part first.
    package static let accepted: [MPU6050Variant] = [
        mpu6050,
        mpu6500Family(0x70, "MPU-6500"),
        mpu6500Family(0x71, "MPU-9250"),
        clone(0x72, "MPU-6050 clone (ID 0x72, seen on GY-521 boards)"),
        mpu6500Family(0x73, "MPU-9255"),
        icm20689,
    ]
}
