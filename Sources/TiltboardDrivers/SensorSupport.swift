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

/// Reads the ID register once more; throws `SensorError.wrongChip` unless it still holds `expected`.
func checkChipID(_ device: RegisterDevice, register: UInt8, expected: UInt8, part: String) throws {
    let id = try device.readByte(register)
    guard id == expected else {
        throw SensorError.wrongChip(found: id, address: device.address, bus: device.bus.name,
                                    expected: ExpectedChip(id: expected, part: part, asWhenOpened: true))
    }
}

extension RegisterDevice {
    /// Makes the offset registers `registers` subtract `value` (in their unit) more than they do
    /// now: reads the three axes, moves each by the nearest whole step (reserved bits kept as
    /// read, saturating at the register's range) and writes them with `configure`, so the next
    /// `verifyConfiguration` reads them back. `scratch` holds at least six bytes.
    func subtractOffsets(_ value: Vector3, at registers: OffsetRegisters, scratch: UnsafeMutableRawBufferPointer) throws {
        let width = registers.bytesPerAxis
        if registers.contiguous {
            try read(registers.x, into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(3 * width)]))
        } else {
            for axis in 0..<3 {
                try read(registers.register(axis: axis), into: UnsafeMutableRawBufferPointer(rebasing: scratch[(axis * width)..<((axis + 1) * width)]))
            }
        }
        for axis in 0..<3 {
            let o = axis * width
            let current = Self.loadOffset(scratch, at: o, registers)
            let kept = current & Int(registers.reservedMask)
            let stepLSB = Int(registers.step / registers.unitPerLSB)
            let steps = (value[axis] / registers.step).rounded()
            let most = width == 1 ? Int(Int8.max) : Int(Int16.max)
            let least = width == 1 ? Int(Int8.min) : Int(Int16.min)
            let moved = Double(current) - steps * Double(stepLSB)
            var updated = Int(Swift.min(Swift.max(moved, Double(least)), Double(most)))
            updated = (updated & ~Int(registers.reservedMask)) | kept
            Self.storeOffset(updated, into: scratch, at: o, registers)
        }
        if registers.contiguous {
            try configure(registers.x, bytes: UnsafeRawBufferPointer(rebasing: scratch[0..<(3 * width)]))
        } else {
            for axis in 0..<3 {
                try configure(registers.register(axis: axis), bytes: UnsafeRawBufferPointer(rebasing: scratch[(axis * width)..<((axis + 1) * width)]))
            }
        }
    }

    private static func loadOffset(_ buffer: UnsafeMutableRawBufferPointer, at o: Int, _ registers: OffsetRegisters) -> Int {
        if registers.bytesPerAxis == 1 { return Int(Int8(bitPattern: buffer[o])) }
        return registers.bigEndian ? Int(int16BigEndian(buffer, o)) : Int(int16LittleEndian(buffer, o))
    }

    private static func storeOffset(_ value: Int, into buffer: UnsafeMutableRawBufferPointer, at o: Int,
                                    _ registers: OffsetRegisters) {
        if registers.bytesPerAxis == 1 { buffer[o] = UInt8(bitPattern: Int8(value)); return }
        let bits = UInt16(bitPattern: Int16(value))
        let (first, second) = registers.bigEndian ? (UInt8(bits >> 8), UInt8(bits & 0xFF)) : (UInt8(bits & 0xFF), UInt8(bits >> 8))
        buffer[o] = first
        buffer[o + 1] = second
    }
}

/// Sleeps `nanoseconds` past now on `clock`.
func wait(_ clock: MonotonicClock, nanoseconds: UInt64) {
    clock.sleep(untilNanoseconds: clock.nowNanoseconds() &+ nanoseconds)
}

/// The index of `value` in `table`, or an `unsupportedSetting` error listing what is allowed.
func tableIndex(of value: Int, in table: [Int], setting: (Int) -> SensorSetting, chip: String) throws -> Int {
    guard let index = table.firstIndex(of: value) else {
        throw SensorError.unsupportedSetting(setting(value), chip: chip, allowed: .oneOf(table))
    }
    return index
}

/// Rejects rates that are not positive finite numbers.
func checkRate(_ rate: Double, chip: String) throws {
    guard rate.isFinite, rate > 0 else {
        throw SensorError.unsupportedSetting(.sampleRate(hz: rate), chip: chip, allowed: .positiveRate)
    }
}

/// The threshold register code for `thresholdG` in steps of `gPerLSB`, at least 1 (0 would flag
/// every sample) and at most `maxCode`; an unusable threshold throws with the range the register
/// can hold.
func motionThresholdCode(_ thresholdG: Double, gPerLSB: Double, maxCode: UInt8 = 255, chip: String) throws -> UInt8 {
    let most = Double(maxCode) * gPerLSB
    guard thresholdG.isFinite, thresholdG > 0, thresholdG <= most else {
        throw SensorError.unsupportedSetting(.motionThreshold(g: thresholdG), chip: chip, allowed: .upToG(most))
    }
    return UInt8(Swift.min(Swift.max((thresholdG / gPerLSB).rounded(), 1), Double(maxCode)))
}
