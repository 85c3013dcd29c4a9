import TiltboardCore

// Word decoding and time helpers shared by the chip drivers; none of them allocates.

@inline(__always)
func int16BigEndian(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> Int16 {
    Int16(bitPattern: UInt16(buffer[offset]) << 8 | UInt16(buffer[offset + 1]))
}

@inline(__always)
func int16LittleEndian(_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> Int16 {
    Int16(bitPattern: UInt16(buffer[offset + 1]) << 8 | UInt16(buffer[offset]))
}

@inline(__always)
func storeBigEndian(_ value: Int16, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
    let bits = UInt16(bitPattern: value)
    buffer[offset] = UInt8(bits >> 8)
    buffer[offset + 1] = UInt8(bits & 0xFF)
}

/// Reads the registers from `first` in one burst into `scratch` and compares each with what was
/// written, under its mask (self-clearing and reserved bits are masked out): a chip that does not
/// keep its configuration is reported instead of silently producing wrong data.
func verifyRegisters(_ bus: I2CBus, address: UInt8, from first: UInt8, scratch: UnsafeMutableRawBufferPointer,
                     expected: (wrote: UInt8, mask: UInt8)...) throws {
    let raw = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<expected.count])
    try bus.read(address: address, register: first, into: raw)
    for (i, (wrote, mask)) in expected.enumerated() where raw[i] & mask != wrote & mask {
        throw SensorError.verifyFailed(register: first &+ UInt8(i), wrote: wrote, read: raw[i],
                                       bus: bus.name, address: address)
    }
}

/// Reads the ID register once more; throws `SensorError.wrongChip` unless it still holds `expected`.
func checkChipID(_ bus: I2CBus, address: UInt8, register: UInt8, expected: UInt8, part: String) throws {
    let id = try bus.readByte(address: address, register: register)
    guard id == expected else {
        throw SensorError.wrongChip(found: id, address: address, bus: bus.name,
                                    expected: "\(expected.hex) (\(part), as when the board was opened)")
    }
}

/// Reads `register` (one byte, one transaction); throws `SensorError.configurationLost` unless it
/// holds `configured` under `mask`.
func checkHeld(_ bus: I2CBus, address: UInt8, register: UInt8, configured: UInt8, mask: UInt8) throws {
    let value = try bus.readByte(address: address, register: register)
    guard value & mask == configured & mask else {
        throw SensorError.configurationLost(register: register, configured: configured, read: value,
                                            bus: bus.name, address: address)
    }
}

/// Rounds and clamps to the Int16 range, so a huge correction saturates instead of trapping.
func clampedInt16(_ value: Double) -> Int16 {
    let r = value.rounded()
    if r >= Double(Int16.max) { return Int16.max }
    if r <= Double(Int16.min) { return Int16.min }
    return Int16(r)
}

/// Sleeps `nanoseconds` past now on `clock`.
func wait(_ clock: MonotonicClock, nanoseconds: UInt64) {
    clock.sleep(untilNanoseconds: clock.nowNanoseconds() &+ nanoseconds)
}

/// The index of `value` in `table`, or an `unsupportedSetting` error listing what is allowed.
func tableIndex(of value: Int, in table: [Int], setting: String, unit: String, chip: String) throws -> Int {
    guard let index = table.firstIndex(of: value) else {
        let allowed = table.map(String.init).joined(separator: ", ")
        throw SensorError.unsupportedSetting(
            "\(chip) cannot use \(setting) \(value) \(unit): choose one of \(allowed) \(unit)")
    }
    return index
}

/// Rejects rates that are not positive finite numbers.
func checkRate(_ rate: Double, chip: String) throws {
    guard rate.isFinite, rate > 0 else {
        throw SensorError.unsupportedSetting("\(chip) cannot sample at \(rate) Hz: give a positive rate in Hz")
    }
}

/// The threshold register code for `thresholdG` in steps of `gPerLSB`, at least 1 (0 would flag
/// every sample); an unusable threshold throws with the range the register can hold.
func motionThresholdCode(_ thresholdG: Double, gPerLSB: Double, chip: String) throws -> UInt8 {
    let most = 255 * gPerLSB
    guard thresholdG.isFinite, thresholdG > 0, thresholdG <= most else {
        throw SensorError.unsupportedSetting(
            "\(chip) cannot use a motion threshold of \(thresholdG) g: give more than 0 and at most \(most) g")
    }
    return UInt8(Swift.min(Swift.max((thresholdG / gPerLSB).rounded(), 1), 255))
}
