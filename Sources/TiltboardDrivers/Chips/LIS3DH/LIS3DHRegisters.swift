/// The LIS3DH register map, declared once for the driver and the simulated part.
///
/// Sources: ST's data sheet DocID17530 Rev 2 ("DS": the register address map and register
/// descriptions, FIFO §5.1, the I²C interface); ST's own platform-independent driver `lis3dh_reg.h`/`.c`
/// ("STD": every register's bit fields, the ODR and full-scale codes, the conversion
/// functions); the Linux kernel's `st_accel_core.c` and `st_sensors_i2c.c` ("K": WHO_AM_I 0x33,
/// ODR and full-scale fields, gains, BDU, the sub-address bit 7 on reads).
package enum LIS3DHRegister {
    /// WHO_AM_I (DS register description, K `wai = 0x33`, STD `LIS3DH_ID`): 0x33 whatever the SA0 pin.
    package static let whoAmI: UInt8 = 0x0F
    /// CTRL_REG0 (DS register description): SDO_PU_DISC [7]; bits 6:0 must stay 0010000 (its power-on value).
    package static let control0: UInt8 = 0x1E
    /// TEMP_CFG_REG (DS register description, STD): ADC_EN [7], TEMP_EN [6]. Both 0: auxiliary ADC and
    /// temperature sensor off.
    package static let temperatureConfig: UInt8 = 0x1F
    /// CTRL_REG1 (DS register description, K `odr.addr 0x20 mask 0xf0`, STD): ODR [7:4], LPen [3], Zen Yen Xen [2:0].
    /// ODR 0 is power-down; powers on at 0x07 (power-down, axes enabled).
    package static let control1: UInt8 = 0x20
    /// CTRL_REG2 (DS register description, STD): HPM [7:6], HPCF [5:4], FDS [3], HPCLICK [2], HP_IA2 [1], HP_IA1 [0].
    package static let control2: UInt8 = 0x21
    /// CTRL_REG3 (DS register description, STD): what drives INT1: I1_CLICK [7], I1_IA1 [6], I1_IA2 [5],
    /// I1_ZYXDA [4], I1_321DA [3], I1_WTM [2], I1_OVERRUN [1].
    package static let control3: UInt8 = 0x22
    /// CTRL_REG4 (DS register description, K `bdu 0x23 mask 0x80`, `fs 0x23 mask 0x30`, STD): BDU [7], BLE [6],
    /// FS [5:4], HR [3], ST [2:1], SIM [0].
    package static let control4: UInt8 = 0x23
    /// CTRL_REG5 (DS register description, STD): BOOT [7], FIFO_EN [6], LIR_INT1 [3], D4D_INT1 [2], LIR_INT2 [1], D4D_INT2 [0].
    package static let control5: UInt8 = 0x24
    /// CTRL_REG6 (DS register description, STD): what drives INT2: I2_CLICK [7], I2_IA1 [6], I2_IA2 [5],
    /// I2_BOOT [4], I2_ACT [3]; INT_POLARITY [1] (0: both pins active high).
    package static let control6: UInt8 = 0x25
    /// REFERENCE (DS register description): reading it resets the high-pass filter to the current acceleration
    /// (HPM 00, "normal mode, reset by reading REFERENCE", STD `LIS3DH_NORMAL_WITH_RST`).
    package static let reference: UInt8 = 0x26
    /// STATUS_REG (DS register description, STD): ZYXOR [7] … ZYXDA [3] ….
    package static let status: UInt8 = 0x27
    /// OUT_X_L (DS register description): X, Y, Z little-endian (BLE 0), left-justified two's complement.
    package static let outXL: UInt8 = 0x28
    /// FIFO_CTRL_REG (DS register description, STD): FM [7:6], TR [5], FTH [4:0].
    package static let fifoControl: UInt8 = 0x2E
    /// FIFO_SRC_REG (DS register description and §5.1, STD): WTM [7], OVRN_FIFO [6], EMPTY [5], FSS [4:0].
    package static let fifoSource: UInt8 = 0x2F
    /// INT1_CFG (DS register description, STD): AOI [7], 6D [6], ZHIE ZLIE YHIE YLIE XHIE XLIE [5:0].
    package static let int1Config: UInt8 = 0x30
    /// INT1_SRC (DS register description, STD): IA [6], ZH ZL YH YL XH XL [5:0]; reading it clears a latched IA.
    package static let int1Source: UInt8 = 0x31
    /// INT1_THS (DS register description, STD): 7-bit threshold, in steps of `LIS3DHScale.thresholdGPerLSB`.
    package static let int1Threshold: UInt8 = 0x32
    /// INT1_DURATION (DS register description, STD): 7-bit minimum event duration, in 1/ODR steps.
    package static let int1Duration: UInt8 = 0x33

    /// Multi-byte transfers increment the register pointer only when bit 7 of the sub-address
    /// is set (DS, I²C operation: "the 7 LSb represent the actual register address while the MSb
    /// enables address auto increment"); K sets it on reads (`ST_SENSORS_I2C_MULTIREAD 0x80`).
    package static let autoIncrement: UInt8 = 0x80

    /// The registers that power on at something other than 0x00 (DS register address map): WHO_AM_I,
    /// CTRL_REG0 0x10 and CTRL_REG1 0x07 (power-down with the three axes enabled). BOOT only
    /// reloads the factory trimming: the part has no soft reset of these registers.
    package static let powerOnValues: [(register: UInt8, value: UInt8)] = [
        (whoAmI, LIS3DH.deviceID), (control0, 0x10), (control1, 0x07),
    ]

    /// Registers a write changes (DS register address map, type r/w); every other register is read-only,
    /// reserved or absent.
    package static let writable: [ClosedRange<UInt8>] = [
        0x1E...0x26,  // CTRL_REG0, TEMP_CFG_REG, CTRL_REG1…6, REFERENCE
        0x2E...0x2E,  // FIFO_CTRL_REG
        0x30...0x30, 0x32...0x34,  // INT1_CFG, INT1_THS, INT1_DURATION, INT2_CFG
        0x36...0x38,  // INT2_THS, INT2_DURATION, CLICK_CFG
        0x3A...0x3F,  // CLICK_THS, TIME_LIMIT, TIME_LATENCY, TIME_WINDOW, ACT_THS, ACT_DUR
    ]

    /// Registers whose contents change without a write: never cached or verified.
    package static let volatileRegisters: [ClosedRange<UInt8>] = [
        0x07...0x0D,  // STATUS_REG_AUX, OUT_ADC1…3
        0x27...0x2D,  // STATUS_REG, OUT_X…OUT_Z
        0x2F...0x2F,  // FIFO_SRC_REG
        0x31...0x31, 0x35...0x35, 0x39...0x39,  // INT1_SRC, INT2_SRC, CLICK_SRC (read clears)
    ]
}

/// CTRL_REG1 fields (DS register description).
package enum LIS3DHControl1 {
    /// LPen: low-power mode, 8-bit data.
    package static let lowPower: UInt8 = 0x08
    /// Zen | Yen | Xen.
    package static let allAxes: UInt8 = 0x07
    /// The ODR field for `code` (0 = power-down).
    @inlinable package static func odr(_ code: UInt8) -> UInt8 { code << 4 }
}

/// CTRL_REG4 fields (DS register description).
package enum LIS3DHControl4 {
    /// BDU: the output registers are not updated until both bytes of the pair were read, so a
    /// burst never mixes two samples (K sets it too: `bdu.mask 0x80`).
    package static let blockDataUpdate: UInt8 = 0x80
    /// BLE: big-endian data (high byte at the lower address); the drivers keep it clear.
    package static let bigEndian: UInt8 = 0x40
    /// HR: high-resolution mode, 12-bit data.
    package static let highResolution: UInt8 = 0x08
    /// The FS field for range code 0…3 (±2/4/8/16 g).
    @inlinable package static func fullScale(_ code: UInt8) -> UInt8 { (code & 0x03) << 4 }
}

/// CTRL_REG5 fields (DS register description).
package enum LIS3DHControl5 {
    /// BOOT: reload the factory trimming; self-clearing.
    package static let boot: UInt8 = 0x80
    /// FIFO_EN.
    package static let fifoEnable: UInt8 = 0x40
    /// LIR_INT1: INT1_SRC's IA stays set (and INT1 with it) until INT1_SRC is read.
    package static let latchInt1: UInt8 = 0x08
}

/// FIFO_CTRL_REG modes (DS §5.1; STD `lis3dh_fm_t`).
package enum LIS3DHFIFOMode: UInt8, Sendable {
    /// FIFO off and emptied: the data registers hold the newest sample.
    case bypass = 0x00
    /// Collects 32 samples, then stops.
    case fifo = 0x40
    /// Keeps the newest 32, overwriting the oldest.
    case stream = 0x80
    /// Stream until the trigger pin rises, then FIFO.
    case streamToFIFO = 0xC0
}

/// FIFO_SRC_REG fields (DS register description).
package enum LIS3DHFIFOSource {
    package static let watermark: UInt8 = 0x80
    /// OVRN_FIFO: the FIFO is full, 32 unread samples (a further one overwrites the oldest).
    package static let overrun: UInt8 = 0x40
    package static let empty: UInt8 = 0x20
    /// FSS: unread samples (five bits: 32 is told by `overrun`).
    package static let levelMask: UInt8 = 0x1F
}

/// INT1_CFG / INT1_SRC bits (DS register description).
package enum LIS3DHInterrupt {
    /// INT1_SRC IA: an event is (or, latched, was) active.
    package static let active: UInt8 = 0x40
    /// INT1_CFG: an X, Y or Z high event (|acceleration| above INT1_THS), OR-combined (AOI 0).
    package static let anyAxisHigh: UInt8 = 0x2A
    /// CTRL_REG3 I1_IA1: interrupt generator 1 drives INT1.
    package static let int1FromGenerator1: UInt8 = 0x40
    /// CTRL_REG2 HP_IA1: generator 1 sees high-pass-filtered data (HPM 00, HPCF 00).
    package static let highPassGenerator1: UInt8 = 0x01
}

/// Operating modes (DS §3.2.1, Table 10; STD `lis3dh_op_md_t`): data width, sensitivity and
/// bandwidth follow from LPen (CTRL_REG1) and HR (CTRL_REG4).
package enum LIS3DHMode: Sendable, CaseIterable {
    /// HR 1, LPen 0: 12-bit data.
    case highResolution
    /// HR 0, LPen 0: 10-bit data.
    case normal
    /// LPen 1: 8-bit data, and the only mode for 1.6 and 5.376 kHz.
    case lowPower

    /// The mode CTRL_REG1 and CTRL_REG4 select (LPen wins over HR; both set is not allowed).
    package init(control1: UInt8, control4: UInt8) {
        if control1 & LIS3DHControl1.lowPower != 0 { self = .lowPower }
        else if control4 & LIS3DHControl4.highResolution != 0 { self = .highResolution }
        else { self = .normal }
    }

    /// Significant bits of the left-justified 16-bit word.
    package var bits: Int {
        switch self {
        case .highResolution: return 12
        case .normal: return 10
        case .lowPower: return 8
        }
    }

    /// Sensitivity in mg per digit of the `bits`-bit value, by range code 0…3 (±2/4/8/16 g): DS
    /// Table 4; STD `lis3dh_from_fs*_{hr,nm,lp}_to_mg`; K gains 1000/2000/4000/12000 µg for the
    /// 12-bit channel. ±16 g is 12 mg (not 8) in high resolution: the word spans more than 16 g.
    package var milliGPerDigit: [Double] {
        switch self {
        case .highResolution: return Self.highResolutionMilliG
        case .normal: return Self.normalMilliG
        case .lowPower: return Self.lowPowerMilliG
        }
    }
    // Stored once: a literal in the property would allocate on every sample.
    private static let highResolutionMilliG: [Double] = [1, 2, 4, 12]
    private static let normalMilliG: [Double] = [4, 8, 16, 48]
    private static let lowPowerMilliG: [Double] = [16, 32, 64, 192]

    /// Output settling after entering the mode from power-down or another mode, in output periods
    /// (DS Table 11: 7/ODR into 12-bit mode, 1/ODR otherwise).
    package var settlingPeriods: Int { self == .highResolution ? 7 : 1 }
}

/// Conversion and rate tables.
package enum LIS3DHScale {
    /// FS codes 0…3 (DS register description, K, STD `lis3dh_fs_t`).
    package static let accelRangesG: [Int] = [2, 4, 8, 16]

    /// Output data rates by CTRL_REG1 ODR code (DS CTRL_REG1 description; STD `lis3dh_odr_t`; K lists codes
    /// 1…8): codes 1…7 give 1, 10, 25, 50, 100, 200, 400 Hz in every mode; code 8 is 1.62 kHz in
    /// low-power mode only; code 9 is 1.344 kHz in normal and high-resolution mode, 5.376 kHz in
    /// low-power mode.
    package static func rateHz(code: UInt8, mode: LIS3DHMode) -> Double? {
        switch code {
        case 1: return 1
        case 2: return 10
        case 3: return 25
        case 4: return 50
        case 5: return 100
        case 6: return 200
        case 7: return 400
        case 8: return mode == .lowPower ? 1620 : nil
        case 9: return mode == .lowPower ? 5376 : 1344
        default: return nil
        }
    }

    /// The rates the driver chooses from, with their code and mode: high resolution wherever it
    /// exists (the same current as normal mode, DS Table 12), low power for 1.62 and 5.376 kHz.
    package static let rates: [(hz: Double, code: UInt8, mode: LIS3DHMode)] = [
        (1, 1, .highResolution), (10, 2, .highResolution), (25, 3, .highResolution), (50, 4, .highResolution),
        (100, 5, .highResolution), (200, 6, .highResolution), (400, 7, .highResolution),
        (1344, 9, .highResolution), (1620, 8, .lowPower), (5376, 9, .lowPower),
    ]

    /// The supported rate nearest to `rate` by ratio.
    package static func nearestRate(_ rate: Double) -> (hz: Double, code: UInt8, mode: LIS3DHMode) {
        rates.min { Swift.max($0.hz / rate, rate / $0.hz) < Swift.max($1.hz / rate, rate / $1.hz) }!
    }

    /// INT1_THS step by range code: 16, 32, 62, 186 mg per LSB at ±2/4/8/16 g (DS INT1_THS description; ST's
    /// own Linux driver for this family, `st_acc33_get_th_lsb`).
    package static let thresholdGPerLSB: [Double] = [0.016, 0.032, 0.062, 0.186]

    /// The low-pass bandwidth of the output by mode (DS Table 10: ODR/9 in high resolution,
    /// ODR/2 otherwise), as a fraction of the ODR.
    package static func bandwidthFraction(_ mode: LIS3DHMode) -> Double {
        mode == .highResolution ? 1.0 / 9 : 0.5
    }

    /// The high-pass cut-off by HPCF (CTRL_REG2 [5:4]) as a fraction of the ODR (STD's table:
    /// at 100 Hz 2, 1, 0.5, 0.2 Hz).
    package static let highPassFraction: [Double] = [1.0 / 50, 1.0 / 100, 1.0 / 200, 1.0 / 500]

    /// HPCF for the motion interrupt at `rateHz`: the highest cut-off at or below the one a
    /// threshold's window allows (1 / (2π × `MotionInterruptRegisters.thresholdWindowSeconds`),
    /// 0.63 Hz), else the lowest. At 100 Hz HPCF 2, 0.5 Hz: a 30° tilt in 0.5 s (1 g/s) passes
    /// as 0.32 g, where HPCF 0 (2 Hz) would pass 0.08 g and miss a 0.1 g threshold.
    package static func motionHighPassCode(rateHz: Double) -> UInt8 {
        let most = 1 / (2 * Double.pi * MotionInterruptRegisters.thresholdWindowSeconds)
        let code = highPassFraction.firstIndex { $0 * rateHz <= most * (1 + 1e-9) } ?? highPassFraction.count - 1
        return UInt8(code)
    }

    /// Boot time after power-on before the registers answer, 2 ms (K `bootime = 2`).
    package static let bootNanoseconds: UInt64 = 2_000_000

    /// FIFO depth in samples (DS §5.1: "a 32-level FIFO for each of the three output channels").
    package static let fifoDepth = 32
}
