/// One chip on a bus as a register file: register reads and writes built on the bus's single
/// transaction primitive, following the chip's `RegisterMap` (auto-increment convention, data
/// ports, volatile registers), with configuration writes remembered and read back.
///
/// Reads and plain writes of up to `scratchCapacity − 1` bytes allocate nothing.
package final class RegisterDevice {
    package let bus: any I2CBus
    /// The chip's 7-bit address.
    package let address: UInt8
    /// The map in force: drivers set it to the identified variant's.
    package var map: RegisterMap {
        didSet { active = map.map(bank: bank ?? 0) }
    }
    /// The bank every transaction addresses, for a banked map (`RegisterMap.banks`): 0 for a
    /// flat one; nil while unknown: before the first `selectBank`, and after any transaction
    /// that failed (the part may have reset to bank 0 while this side thought otherwise, or a
    /// select write may not have landed). `selectBank` then writes the select register again.
    package private(set) var bank: Int?
    /// The map of `bank` (of bank 0 while the bank is unknown).
    private var active: RegisterMap
    /// Bytes the write scratch holds (sub-address included).
    package static let scratchCapacity = 64

    private let scratch: UnsafeMutableRawBufferPointer
    /// Configuration writes not yet read back, by register: the value last written, and whether
    /// one is pending. Fixed tables, so reading back allocates nothing (it runs on every wake).
    private let written: UnsafeMutableBufferPointer<UInt8>
    private let pending: UnsafeMutableBufferPointer<Bool>

    package init(bus: any I2CBus, address: UInt8, map: RegisterMap) {
        self.bus = bus; self.address = address; self.map = map; active = map
        bank = map.banks == nil ? 0 : nil
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.scratchCapacity, alignment: 8)
        scratch.initializeMemory(as: UInt8.self, repeating: 0)
        written = .allocate(capacity: 256)
        written.initialize(repeating: 0)
        pending = .allocate(capacity: 256)
        pending.initialize(repeating: false)
    }

    deinit {
        scratch.deallocate()
        written.deallocate()
        pending.deallocate()
    }

    // MARK: Reads

    /// Reads `buffer.count` registers from `register` in one transaction (a data port fills the
    /// buffer from itself).
    package func read(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try transfer(register, into: buffer, pattern: active.isPort(register) ? .repeating(period: 1) : .incrementing)
    }

    /// Reads one register.
    package func readByte(_ register: UInt8) throws -> UInt8 {
        let one = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<1])
        try read(register, into: one)
        return one[0]
    }

    private func transfer(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer,
                          pattern: I2CReadPattern) throws {
        guard !buffer.isEmpty else { return }
        var sub = active.subAddress(register, count: buffer.count)
        try withUnsafeBytes(of: &sub) { try transact(write: $0, read: buffer, pattern: pattern) }
    }

    /// The bus's one transaction; a failure names the register rather than the sub-address byte
    /// (on an ST part bit 7 is the auto-increment flag, not part of the register).
    private func transact(write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                          pattern: I2CReadPattern) throws {
        do {
            try bus.transfer(address: address, write: write, read: read, pattern: pattern)
        } catch var error as I2CError {
            if map.banks != nil { bank = nil }
            if let sub = error.register { error.register = active.decode(subAddress: sub).register }
            throw error
        } catch {
            if map.banks != nil { bank = nil }
            throw error
        }
    }

    // MARK: Banks

    /// Makes `bank` the one later transactions address: writes the select register unless the
    /// part is known to be in it already (so it costs nothing on the sampling path). Pending
    /// configuration writes belong to the bank they were made in, so they are read back
    /// (`verifyConfiguration`) before the switch. A flat map has only bank 0.
    package func selectBank(_ bank: Int) throws {
        guard let banks = map.banks else {
            precondition(bank == 0, "a flat register map has no bank \(bank)")
            return
        }
        precondition(bank < map.bankCount, "no register bank \(bank)")
        guard self.bank != bank else { return }
        if self.bank != nil { try verifyConfiguration() } else { pending.update(repeating: false) }
        scratch[1] = banks.selectValue(bank)
        scratch[0] = banks.selectRegister
        try transact(write: UnsafeRawBufferPointer(rebasing: scratch[0..<2]),
                     read: UnsafeMutableRawBufferPointer(start: nil, count: 0), pattern: .incrementing)
        self.bank = bank
        active = map.map(bank: bank)
    }

    /// After a reset the part is back in its power-on bank, 0 (ICM-20948 DEVICE_RESET returns
    /// REG_BANK_SEL to 0): nothing to write, and the configuration pending in another bank is gone.
    package func resetToPowerOnBank() {
        guard map.banks != nil else { return }
        pending.update(repeating: false)
        bank = 0
        active = map
    }

    // MARK: Writes

    /// Writes one register, not read back (resets, FIFO resets and other actions).
    package func write(_ register: UInt8, _ value: UInt8) throws {
        scratch[1] = value
        try send(register, count: 1)
    }

    /// Writes consecutive registers from `register` in one transaction, not read back.
    package func write(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        precondition(bytes.count < Self.scratchCapacity, "register write longer than the scratch buffer")
        for i in 0..<bytes.count { scratch[i + 1] = bytes[i] }
        try send(register, count: bytes.count)
    }

    /// Writes one configuration register and remembers it for `verifyConfiguration`
    /// (a volatile register is written but never read back).
    package func configure(_ register: UInt8, _ value: UInt8) throws {
        try write(register, value)
        remember(register, value)
    }

    /// Writes consecutive configuration registers (offsets) in one transaction and remembers
    /// each for `verifyConfiguration`.
    package func configure(_ register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        try write(register, bytes: bytes)
        for i in 0..<bytes.count { remember(register &+ UInt8(i), bytes[i]) }
    }

    /// Reads back every register written with `configure` since the last call, one burst per run
    /// of consecutive registers, and compares each under the map's read-back mask. Throws
    /// `SensorError.verifyFailed` naming the first that differs: a chip that does not keep its
    /// configuration is reported instead of silently producing wrong data.
    package func verifyConfiguration() throws {
        defer { pending.update(repeating: false) }
        var first = 0
        while first < 256 {
            guard pending[first] else { first += 1; continue }
            var end = first + 1
            while end < 256, pending[end], end - first < Self.scratchCapacity { end += 1 }
            let run = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(end - first)])
            try transfer(UInt8(first), into: run, pattern: .incrementing)
            for register in first..<end {
                let wrote = written[register], read = run[register - first]
                let mask = active.readBackMask(UInt8(register))
                if read & mask != wrote & mask {
                    throw SensorError.verifyFailed(register: UInt8(register), wrote: wrote, read: read,
                                                   bus: bus.name, address: address)
                }
            }
            first = end
        }
    }

    /// Reads `register` (one byte, one transaction); throws `SensorError.configurationLost`
    /// unless it still holds `configured` under the map's read-back mask.
    package func checkHeld(_ register: UInt8, configured: UInt8) throws {
        let value = try readByte(register)
        let mask = active.readBackMask(register)
        guard value & mask == configured & mask else {
            throw SensorError.configurationLost(register: register, configured: configured, read: value,
                                                bus: bus.name, address: address)
        }
    }

    private func remember(_ register: UInt8, _ value: UInt8) {
        guard !active.isVolatile(register) else { return }
        written[Int(register)] = value
        pending[Int(register)] = true
    }

    /// Sends the sub-address for `count` bytes at `register` and the `count` data bytes staged at scratch[1...].
    private func send(_ register: UInt8, count: Int) throws {
        scratch[0] = active.subAddress(register, count: count)
        try transact(write: UnsafeRawBufferPointer(rebasing: scratch[0..<(count + 1)]),
                     read: UnsafeMutableRawBufferPointer(start: nil, count: 0), pattern: .incrementing)
    }
}
