/// The MPU-6050 register map, declared once (InvenSense RM-MPU-6000A-00 Rev 4.2, "RM", whose
/// sections are titled by decimal register number; product spec PS-MPU-6000A-00 Rev 3.4, "PS").
///
/// Registers the RM leaves undocumented are named after the InvenSense offset app note or the
/// Linux `inv_mpu6050` driver, as noted.
package enum MPU6050Register {
    /// XA_OFFS_H: first of three big-endian accel offsets, ±16 g format (offset app note; not in RM 4.2).
    package static let accelOffset: UInt8 = 0x06
    /// XG_OFFS_USRH: first of three big-endian gyro offsets, ±1000 °/s format (offset app note).
    package static let gyroOffset: UInt8 = 0x13
    /// SMPLRT_DIV (RM Register 25, p.12): sample rate = gyro output rate / (1 + divider).
    package static let sampleRateDivider: UInt8 = 0x19
    /// CONFIG (RM Register 26, p.13): EXT_SYNC_SET [5:3], DLPF_CFG [2:0].
    package static let config: UInt8 = 0x1A
    /// GYRO_CONFIG (RM Register 27, p.14): self-test [7:5], FS_SEL [4:3].
    package static let gyroConfig: UInt8 = 0x1B
    /// ACCEL_CONFIG (RM Register 28, p.15): self-test [7:5], AFS_SEL [4:3].
    package static let accelConfig: UInt8 = 0x1C
    /// MOT_THR (RM 4.0 Register 31; undocumented in 4.2): motion threshold, 32 mg/LSB here (see
    /// `MPU6050Scale.motionThresholdGPerLSB`).
    package static let motionThreshold: UInt8 = 0x1F
    /// MOT_DUR (undocumented): samples over the threshold before motion is flagged, 1 ms/LSB.
    package static let motionDuration: UInt8 = 0x20
    /// FIFO_EN (RM Register 35): which sensor groups are pushed into the FIFO.
    package static let fifoEnable: UInt8 = 0x23
    /// INT_PIN_CFG (RM Register 55): INT_LEVEL [7], INT_OPEN [6], LATCH_INT_EN [5], INT_RD_CLEAR [4].
    package static let intPinConfig: UInt8 = 0x37
    /// INT_ENABLE (RM Register 56): MOT_EN [6] (RM 4.0), FIFO_OFLOW_EN [4], DATA_RDY_EN [0].
    package static let intEnable: UInt8 = 0x38
    /// INT_STATUS (RM Register 58): read clears it; bit 6 motion, bit 4 FIFO overflow, bit 0 data ready.
    package static let intStatus: UInt8 = 0x3A
    /// ACCEL_XOUT_H (RM Registers 59–72, accel, temperature, gyro): start of the 14-byte accel, temp, gyro burst.
    package static let accelXOutH: UInt8 = 0x3B
    /// SIGNAL_PATH_RESET (RM Register 104): resets the sensors' signal paths, self-clearing.
    package static let signalPathReset: UInt8 = 0x68
    /// MOT_DETECT_CTRL (undocumented, i2cdevlib): ACCEL_ON_DELAY [5:4], FF_COUNT [3:2], MOT_COUNT [1:0].
    package static let motionDetectControl: UInt8 = 0x69
    /// USER_CTRL (RM Register 106): FIFO_EN, FIFO_RESET, SIG_COND_RESET.
    package static let userControl: UInt8 = 0x6A
    /// PWR_MGMT_1 (RM Register 107, p.41): DEVICE_RESET, SLEEP, CYCLE, TEMP_DIS, CLKSEL. Resets to 0x40.
    package static let powerManagement1: UInt8 = 0x6B
    /// PWR_MGMT_2 (RM Register 108, p.42): LP_WAKE_CTRL [7:6], STBY_XA…STBY_ZG [5:0].
    package static let powerManagement2: UInt8 = 0x6C
    /// FIFO_COUNTH (RM Registers 114–115, p.43): big-endian byte count; reading the high byte latches both.
    package static let fifoCountH: UInt8 = 0x72
    /// FIFO_COUNTL: the count's low byte, as latched by reading FIFO_COUNTH.
    package static let fifoCountL: UInt8 = 0x73
    /// FIFO_R_W (RM Register 116, p.44): FIFO data port; burst reads keep popping this one register.
    package static let fifoData: UInt8 = 0x74
    /// WHO_AM_I (RM Register 117, p.45): 0x68 whatever the AD0 pin.
    package static let whoAmI: UInt8 = 0x75

    /// Registers whose contents change without a write, so they are never cached or verified:
    /// interrupt status, the data and FIFO registers, and the FIFO port (RM Registers 54–116).
    package static let volatileRegisters: [ClosedRange<UInt8>] = [
        0x36...0x36,  // I2C_MST_STATUS (read clears)
        0x3A...0x60,  // INT_STATUS, sensor data, EXT_SENS_DATA
        0x61...0x61,  // MOT_DETECT_STATUS
        0x72...0x74,  // FIFO_COUNT, FIFO_R_W
    ]
}

/// PWR_MGMT_1 bits (RM Register 107).
package struct MPU6050PowerManagement1: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Self-clearing on silicon; the kernel's i2c-stub never clears it, so nothing polls it.
    package static let deviceReset = Self(rawValue: 0x80)
    /// Low-power sleep; set at power-on, so the chip reads zeros until woken.
    package static let sleep = Self(rawValue: 0x40)
    /// With SLEEP clear: wake for one sample at the LP_WAKE_CTRL rate, then sleep again.
    package static let cycle = Self(rawValue: 0x20)
    /// Turns the temperature sensor off.
    package static let temperatureDisable = Self(rawValue: 0x08)
    /// CLKSEL = 1: PLL on the X gyro, more stable than the 8 MHz oscillator (RM Register 107).
    package static let clockPLLXGyro = Self(rawValue: 0x01)
    /// Bits that read back as written (DEVICE_RESET self-clears, bit 4 is reserved).
    package static let verifyMask: UInt8 = 0x6F
}

/// USER_CTRL bits (RM Register 106).
package struct MPU6050UserControl: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Lets the sample clock push FIFO_EN's groups into the FIFO.
    package static let fifoEnable = Self(rawValue: 0x40)
    /// Self-clearing; set while FIFO_EN is clear.
    package static let fifoReset = Self(rawValue: 0x04)
    /// Bits that read back as written (FIFO_RESET, I2C_MST_RESET, SIG_COND_RESET self-clear).
    package static let verifyMask: UInt8 = 0xF8
}

/// FIFO_EN bits (RM Register 35).
package struct MPU6050FIFOEnable: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// TEMP_OUT (2 bytes per frame).
    package static let temperature = Self(rawValue: 0x80)
    /// GYRO_XOUT (2 bytes per frame).
    package static let gyroX = Self(rawValue: 0x40)
    /// GYRO_YOUT (2 bytes per frame).
    package static let gyroY = Self(rawValue: 0x20)
    /// GYRO_ZOUT (2 bytes per frame).
    package static let gyroZ = Self(rawValue: 0x10)
    /// ACCEL_X/Y/ZOUT (6 bytes per frame).
    package static let accel = Self(rawValue: 0x08)
    /// Accel, temperature and gyro: 14-byte frames laid out like the 0x3B burst (RM Registers 35, 116).
    package static let motionAndTemperature: Self = [.accel, .temperature, .gyroX, .gyroY, .gyroZ]
}

/// INT_STATUS bits (RM Register 58).
package struct MPU6050InterruptStatus: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// MOT_INT: the motion detector fired (RM 4.0; same bit as MOT_EN in INT_ENABLE).
    package static let motion = Self(rawValue: 0x40)
    /// The FIFO overflowed: oldest bytes dropped, frame alignment lost.
    package static let fifoOverflow = Self(rawValue: 0x10)
    /// A new sample is in the data registers.
    package static let dataReady = Self(rawValue: 0x01)
}

/// Conversion and rate tables (Product Specification rev 3.4 §6.1–6.2 sensitivities; Register Map rev 4.2 registers 25–28).
package enum MPU6050Scale {
    /// PS 6.2: AFS_SEL 0…3 → ±2/4/8/16 g over a signed 16-bit word, 16384 / 2^AFS_SEL LSB/g.
    package static let accelRangesG: [Int] = [2, 4, 8, 16]
    /// LSB per g for each entry of `accelRangesG`.
    package static let accelLSBPerG: [Double] = [16384, 8192, 4096, 2048]
    /// PS 6.1: FS_SEL 0…3 → ±250/500/1000/2000 °/s; 131 / 2^FS_SEL LSB/(°/s), as the PS rounds it.
    package static let gyroRangesDps: [Int] = [250, 500, 1000, 2000]
    /// LSB per °/s for each entry of `gyroRangesDps`.
    package static let gyroLSBPerDps: [Double] = [131, 65.5, 32.8, 16.4]
    /// RM Register 26: accelerometer and gyro bandwidth for DLPF_CFG 0…7, Hz (7 is reserved and
    /// behaves as 0).
    package static let dlpfAccelBandwidthHz: [Double] = [260, 184, 94, 44, 21, 10, 5, 260]
    package static let dlpfGyroBandwidthHz: [Double] = [256, 188, 98, 42, 20, 10, 5, 256]
    /// RM temperature measurement (Registers 65–66): °C = raw / 340 + 36.53 (−521 LSB at 35 °C).
    package static let temperatureLSBPerC = 340.0
    /// °C at raw 0.
    package static let temperatureOffsetC = 36.53
    /// Offset app note: accel offsets count in the ±16 g format, 2048 LSB/g; bit 0 is reserved.
    package static let accelOffsetLSBPerG = 2048.0
    /// Offset app note / MPU-9250 RM p.11: gyro offsets count in the ±1000 °/s format, 2^15 LSB
    /// per 1000 °/s (one LSB is 4 output LSB at ±250 °/s, "X_OFFS_USR × 4 / 2^FS_SEL"); the PS
    /// rounds the same sensitivity to 32.8.
    package static let gyroOffsetLSBPerDps = 32.768

    /// MOT_THR's unit. Sources disagree: the Register Map of the rev 2.0–3.2 era says 2 mg/LSB, the
    /// product spec 3.4 ("intelligence function increment") 32 mg/LSB. 32 mg is used: it is the
    /// newer, normative document, and if it is wrong the chip wakes more often, never less.
    package static let motionThresholdGPerLSB = 0.032
    /// ACCEL_CONFIG[2:0] = 4: the detectors' high-pass at 0.63 Hz, low enough that a tilt passes
    /// as well as a shake or a tap (5 Hz would let only fast motion through).
    package static let motionHighPass: UInt8 = 4

    /// ACCEL_HPF 1…4 → the detectors' high-pass cutoff in Hz: 5, 2.5, 1.25, 0.63 (Register Map rev 3.2, ACCEL_CONFIG,
    /// halving, rounded there).
    package static func highPassCutoffHz(_ code: Int) -> Double { code == 4 ? 0.63 : 10 / Double(1 << code) }

    /// RM Register 25: with the DLPF on the gyro output rate is 1 kHz, so rate = 1000 / (1 + SMPLRT_DIV);
    /// like Linux, rates are held to 4…1000 Hz (divider 249…0).
    package static let dlpfBaseRateHz = 1000.0
    /// Slowest rate the 8-bit divider allows on the 1 kHz base (1000 / 250).
    package static let minimumRateHz = 4.0

    /// DLPF_CFG chosen so the filter bandwidth stays at or below half the sample rate, as Linux's
    /// `inv_mpu6050_set_lpf` does: BW 188/98/42/20/10/5 Hz for CFG 1…6 (RM Register 26).
    package static func dlpfConfig(forRateHz rate: Double) -> UInt8 {
        if rate >= 400 { return 1 }
        if rate >= 200 { return 2 }
        if rate >= 90 { return 3 }
        if rate >= 40 { return 4 }
        if rate >= 20 { return 5 }
        return 6
    }

    /// SMPLRT_DIV for the nearest rate the 1 kHz base can give.
    package static func sampleRateDivider(forRateHz rate: Double) -> UInt8 {
        let clamped = Swift.min(Swift.max(rate, minimumRateHz), dlpfBaseRateHz)
        let divider = (dlpfBaseRateHz / clamped).rounded() - 1
        return UInt8(Swift.min(Swift.max(divider, 0), 255))
    }

    /// FIFO frames that keep the Linux margin before overflow (count ≥ size − 3 frames resets).
    package static func fifoOverflowThreshold(fifoSize: Int, frameBytes: Int) -> Int {
        fifoSize - 3 * frameBytes
    }
}

/// INT_PIN_CFG bits (RM Register 55).
package struct MPU6050InterruptPin: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// The pin is active low (clear: active high).
    package static let activeLow = Self(rawValue: 0x80)
    /// Open drain (clear: push-pull).
    package static let openDrain = Self(rawValue: 0x40)
    /// Held until the status is cleared (clear: a 50 µs pulse per event).
    package static let latch = Self(rawValue: 0x20)
    /// Any read clears the status (clear: only reading INT_STATUS does).
    package static let clearOnAnyRead = Self(rawValue: 0x10)
}

/// Registers the MPU-6500 family and the ICM-20689 add to the 6050's map (MPU-9250 Register Map
/// rev 1.4, "RM9250"; ICM-20689 data sheet rev 1.0, "DS20689").
package enum MPU6500Register {
    /// ACCEL_CONFIG2 (RM9250 Register 29, p.15): ACCEL_FCHOICE_B [3], A_DLPF_CFG [2:0].
    package static let accelConfig2: UInt8 = 0x1D
    /// WOM_THR (RM9250 Register 31, p.15): wake-on-motion threshold, 4 mg/LSB.
    package static let wakeOnMotionThreshold: UInt8 = 0x1F
    /// ACCEL_WOM_X_THR (DS20689 Register 32; Y 0x21, Z 0x22): the ICM-20689's per-axis thresholds.
    package static let icmWakeOnMotionXThreshold: UInt8 = 0x20
    /// ACCEL_INTEL_CTRL (RM9250 Register 105, p.39; DS20689 Register 105): ACCEL_INTEL_EN [7],
    /// ACCEL_INTEL_MODE [6] (1: compare each sample with the previous one).
    package static let accelIntelControl: UInt8 = 0x69
}

/// Figures of the MPU-6500 family and the ICM-20689.
package enum MPU6500Scale {
    /// WOM_THR / ACCEL_WOM_*_THR unit (RM9250 p.15 "LSB = 4 mg, range 0 to 1020 mg"; the kernel's
    /// `inv_mpu6050_set_wom_threshold` divides mg by 4).
    package static let wakeOnMotionGPerLSB = 0.004
    /// ACCEL_INTEL_CTRL: ACCEL_INTEL_EN | ACCEL_INTEL_MODE (K `INV_MPU6500_BIT_ACCEL_INTEL_EN`, `_MODE`).
    package static let accelIntelEnableAndCompare: UInt8 = 0xC0

    // What a motion threshold means on a part that compares each sample with the previous one.
    // The MPU-6050's detector sees the acceleration through its 0.63 Hz high-pass: it fires on a
    // change of the threshold within about the filter's time constant, 1/(2π·0.63 Hz) = 0.253 s,
    // and on a slow tilt once it changes faster than threshold / 0.253 s. A wake-on-motion part
    // is given the same rate of change, as the kernel does (`inv_mpu6050_convert_roc_to_wom`:
    // WOM_THR = rate of change × sample period / 4 mg): threshold × period / 0.253 s per sample.
    // At the loop's rate that is too fine for 4 mg steps and the noise (0.1 g at 100 Hz: 4 mg per
    // sample, below the difference of two noisy samples), so the part is armed at a rate of its
    // own, as the kernel lowers it for wake-on-motion (`inv_mpu6050_set_wom_lp`), and put back
    // on waking.

    /// While armed, samples are compared at 20 Hz (SMPLRT_DIV 49, the DLPF at 10 Hz): 50 ms
    /// between comparisons, 0.1 g becomes 20 mg (5 steps, 11 times the simulated part's noise
    /// of a difference), and a shake wakes the board within 50 ms.
    package static let wakeOnMotionRateHz = 20.0
    /// g of threshold per WOM_THR step at `wakeOnMotionRateHz`, the threshold spread over
    /// `MotionInterruptRegisters.thresholdWindowSeconds`: 4 mg × 0.253 s × 20 Hz = 20.2 mg (at
    /// most 5.15 g in 255 steps).
    package static let wakeThresholdStepG = wakeOnMotionGPerLSB * MotionInterruptRegisters.thresholdWindowSeconds * wakeOnMotionRateHz
}
