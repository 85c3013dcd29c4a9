/// The ADXL345 register map, declared once (Analog Devices ADXL345 data sheet Rev E, "DS";
/// register definitions in the "Register Map" and "Register Definitions" sections, p.23–27).
package enum ADXL345Register {
    /// DEVID (DS Register 0x00): always 0xE5.
    package static let deviceID: UInt8 = 0x00
    /// OFSX/OFSY/OFSZ (DS Register 0x1E–0x20): signed, 15.6 mg/LSB, added to the output.
    package static let offsetX: UInt8 = 0x1E
    /// THRESH_ACT (DS Register 0x24): activity threshold, unsigned, 62.5 mg/LSB.
    package static let activityThreshold: UInt8 = 0x24
    /// ACT_INACT_CTL (DS Register 0x27): ACT ac/dc [7], ACT_X/Y/Z [6:4], then the same for inactivity.
    package static let activityControl: UInt8 = 0x27
    /// BW_RATE (DS Register 0x2C, Table 7): LOW_POWER [4], rate code [3:0]. Resets to 0x0A.
    package static let bandwidthRate: UInt8 = 0x2C
    /// POWER_CTL (DS Register 0x2D): Link, AUTO_SLEEP, Measure, Sleep, Wakeup.
    package static let powerControl: UInt8 = 0x2D
    /// INT_ENABLE (DS Register 0x2E): which events drive the INT pins (layout of `ADXL345Interrupt`).
    package static let intEnable: UInt8 = 0x2E
    /// INT_MAP (DS Register 0x2F): a set bit sends that event to INT2, clear to INT1.
    package static let intMap: UInt8 = 0x2F
    /// INT_SOURCE (DS Register 0x30): event flags.
    package static let intSource: UInt8 = 0x30
    /// DATA_FORMAT (DS Register 0x31): SELF_TEST, SPI, INT_INVERT, FULL_RES, Justify, Range.
    package static let dataFormat: UInt8 = 0x31
    /// DATAX0 (DS Register 0x32–0x37): X, Y, Z little-endian; any read pops a FIFO entry.
    package static let dataX0: UInt8 = 0x32
    /// FIFO_CTL (DS Register 0x38): FIFO_MODE [7:6], Trigger [5], Samples [4:0].
    package static let fifoControl: UInt8 = 0x38
    /// FIFO_STATUS (DS Register 0x39): FIFO_TRIG [7], Entries [5:0].
    package static let fifoStatus: UInt8 = 0x39

    /// The registers that power on at something other than 0x00 (DS Table 19, register map):
    /// DEVID, BW_RATE 0x0A (100 Hz) and INT_SOURCE 0x02 (Watermark, set while FIFO_CTL's Samples
    /// is 0; data sheet rev E, FIFO_CTL). POWER_CTL powers on at 0: standby, no conversions.
    package static let powerOnValues: [(register: UInt8, value: UInt8)] = [
        (deviceID, ADXL345.deviceID), (bandwidthRate, 0x0A), (intSource, 0x02),
    ]

    /// Registers whose contents change without a write (DS Register 0x2B, 0x30, 0x32–0x39).
    package static let volatileRegisters: [ClosedRange<UInt8>] = [
        0x2B...0x2B,  // ACT_TAP_STATUS
        0x30...0x30,  // INT_SOURCE
        0x32...0x37,  // DATAX0…DATAZ1
        0x39...0x39,  // FIFO_STATUS
    ]
}

/// POWER_CTL bits (DS Register 0x2D).
package struct ADXL345PowerControl: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Serial activity/inactivity detection.
    package static let link = Self(rawValue: 0x20)
    /// Sleep automatically on inactivity (needs `link`).
    package static let autoSleep = Self(rawValue: 0x10)
    /// Measure mode; clear is standby, the power-on state.
    package static let measure = Self(rawValue: 0x08)
    /// Sleep: samples only at the Wakeup rate, no FIFO or DATA_READY.
    package static let sleep = Self(rawValue: 0x04)
    /// Bits that exist (7:6 read 0).
    package static let verifyMask: UInt8 = 0x3F
}

/// DATA_FORMAT fields (DS Register 0x31).
package struct ADXL345DataFormat: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Applies the self-test force to the sensor.
    package static let selfTest = Self(rawValue: 0x80)
    /// Interrupt pins active low.
    package static let intInvert = Self(rawValue: 0x20)
    /// 3.9 mg/LSB in every range instead of 10 bits spread over the range.
    package static let fullResolution = Self(rawValue: 0x08)
    /// Left (MSB) justified; the drivers keep it clear for sign-extended right-justified words.
    package static let justifyLeft = Self(rawValue: 0x04)
    /// Range code 0…3 for ±2/4/8/16 g in bits 1:0.
    package static func range(code: UInt8) -> Self { Self(rawValue: code & 0x03) }
    /// Bits that exist (bit 4 reads 0).
    package static let verifyMask: UInt8 = 0xEF
}

/// FIFO_CTL modes (DS Register 0x38, Table 19).
package enum ADXL345FIFOMode: UInt8, Sendable {
    case bypass = 0x00
    case fifo = 0x40
    /// Keeps the newest 32 samples, so a late drain loses the oldest, never the alignment.
    case stream = 0x80
    case trigger = 0xC0
}

/// Conversion and rate tables (data sheet rev E: Table 1 sensitivities, Table 7 output data rates).
package enum ADXL345Scale {
    /// DS Register 0x31: range code 0…3 → ±2/4/8/16 g.
    package static let accelRangesG: [Int] = [2, 4, 8, 16]
    /// DS Table 1: 256 LSB/g typical at ±2 g (3.9 mg/LSB); with FULL_RES the LSB stays 3.9 mg
    /// in every range, the word simply grows from 10 to 13 bits.
    package static let fullResolutionLSBPerG = 256.0
    /// DS Register 0x1E: 15.6 mg/LSB, exactly four full-resolution data LSBs.
    package static let offsetGPerLSB = 4.0 / 256.0
    /// DS Table 7: ODR = 3200 Hz / 2^(15 − code) for codes 0…15 (0.098 Hz … 3200 Hz).
    package static func rateHz(code: UInt8) -> Double {
        3200.0 / Double(1 << (15 - Int(code & 0x0F)))
    }
    /// The rate code whose ODR is nearest to `rate` by ratio (rates are powers of two apart).
    package static func rateCode(forRateHz rate: Double) -> UInt8 {
        var best: UInt8 = 0
        var bestRatio = Double.infinity
        for code in UInt8(0)...15 {
            let odr = rateHz(code: code)
            let ratio = Swift.max(odr / rate, rate / odr)
            if ratio < bestRatio { bestRatio = ratio; best = code }
        }
        return best
    }
    /// THRESH_ACT's unit (DS Register 0x24): 62.5 mg/LSB, 0xFF = 16 g.
    package static let activityThresholdGPerLSB = 0.0625
    /// Turn-on time 1.1 ms + 1/ODR before the first valid sample (ADI's figure, as for the ADXL312).
    package static let turnOnNanoseconds: UInt64 = 1_100_000
}

/// INT_ENABLE / INT_MAP / INT_SOURCE bits (DS Registers 0x2E–0x30).
package struct ADXL345Interrupt: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let dataReady = Self(rawValue: 0x80)
    package static let singleTap = Self(rawValue: 0x40)
    package static let doubleTap = Self(rawValue: 0x20)
    /// Acceleration above THRESH_ACT on an enabled axis; latched until INT_SOURCE is read.
    package static let activity = Self(rawValue: 0x10)
    package static let inactivity = Self(rawValue: 0x08)
    package static let freeFall = Self(rawValue: 0x04)
    package static let watermark = Self(rawValue: 0x02)
    package static let overrun = Self(rawValue: 0x01)
}

/// ACT_INACT_CTL bits for activity (DS Register 0x27).
package struct ADXL345ActivityControl: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    /// ac-coupled: compare against the acceleration when detection started, not against zero.
    package static let acCoupled = Self(rawValue: 0x80)
    package static let x = Self(rawValue: 0x40)
    package static let y = Self(rawValue: 0x20)
    package static let z = Self(rawValue: 0x10)
    /// ac-coupled activity on every axis: what wake-on-motion uses.
    package static let acAllAxes: Self = [.acCoupled, .x, .y, .z]
}
