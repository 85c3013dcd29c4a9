/// A chip's register file as the bus sees it, declared once per part and used by both its
/// driver (through `RegisterDevice`) and its simulated part.
package struct RegisterMap: Sendable {
    /// How a burst walks the register file.
    package enum AutoIncrement: Sendable, Equatable {
        /// The pointer advances after every byte of a burst (InvenSense, Analog Devices).
        case always
        /// The pointer advances only when the sub-address has `bit` set, and the register is the
        /// sub-address without it (ST: "the MSb of SUB enables address auto-increment", bit 7).
        case whenSubAddressBit(UInt8)
    }

    /// The auto-increment convention.
    package var autoIncrement: AutoIncrement
    /// Registers a write changes; writes anywhere else are ignored by the part (read-only,
    /// reserved or absent registers).
    package var writable: [ClosedRange<UInt8>]
    /// Registers whose content changes without a write (status, data, FIFO count and port): never
    /// read back after a write, never cached.
    package var volatile: [ClosedRange<UInt8>]
    /// Data ports: a burst starting here keeps reading this one register (a FIFO pops a byte per read).
    package var ports: [UInt8]
    /// Registers that power on (or soft-reset) at something other than 0x00; the ID register is
    /// each variant's own and is not listed.
    package var powerOnValues: [(register: UInt8, value: UInt8)]
    /// Bits of a register that read back as written (self-clearing and reserved bits excluded);
    /// registers not listed read back whole.
    package var readBackMasks: [(register: UInt8, mask: UInt8)]
    /// Bits of a register that a write leaves alone (reserved bits keeping their factory value,
    /// e.g. bit 0 of the MPU accel offsets' low bytes); registers not listed take every bit.
    package var keptBits: [(register: UInt8, mask: UInt8)]
    /// The other banks of a banked register file (ICM-20948: REG_BANK_SEL switches four banks
    /// of 128 registers); nil for a flat file. This map is then bank 0, the bank the part powers
    /// on (and resets) in, and `RegisterDevice` knows which bank every transaction addresses.
    package var banks: RegisterBanks?

    package init(autoIncrement: AutoIncrement = .always, writable: [ClosedRange<UInt8>],
                volatile: [ClosedRange<UInt8>], ports: [UInt8] = [],
                powerOnValues: [(register: UInt8, value: UInt8)] = [],
                readBackMasks: [(register: UInt8, mask: UInt8)] = [],
                keptBits: [(register: UInt8, mask: UInt8)] = [],
                banks: RegisterBanks? = nil) {
        self.autoIncrement = autoIncrement; self.writable = writable; self.volatile = volatile
        self.ports = ports; self.powerOnValues = powerOnValues; self.readBackMasks = readBackMasks
        self.keptBits = keptBits; self.banks = banks
    }

    /// Banks in the file: 1 for a flat one.
    package var bankCount: Int { 1 + (banks?.others.count ?? 0) }

    /// The map of `bank` (0: this one).
    package func map(bank: Int) -> RegisterMap { bank == 0 ? self : banks!.others[bank - 1] }

    // Index loops: the per-sample path must not allocate, and in a debug build even a `for-in`
    // over an array or a `contains(where:)` can (unspecialised generic iteration boxes).

    /// True when a write to `register` changes it.
    package func isWritable(_ register: UInt8) -> Bool { Self.any(writable, holds: register) }
    /// True when `register` changes without a write.
    package func isVolatile(_ register: UInt8) -> Bool { Self.any(volatile, holds: register) }
    /// True when `register` is a data port (a burst does not advance from it).
    package func isPort(_ register: UInt8) -> Bool {
        var i = 0
        while i < ports.count {
            if ports[i] == register { return true }
            i += 1
        }
        return false
    }
    /// The bits of `register` that read back as written.
    package func readBackMask(_ register: UInt8) -> UInt8 { Self.mask(readBackMasks, register) ?? 0xFF }
    /// The bits of `register` a write leaves alone.
    package func keptMask(_ register: UInt8) -> UInt8 { Self.mask(keptBits, register) ?? 0 }

    private static func any(_ ranges: [ClosedRange<UInt8>], holds register: UInt8) -> Bool {
        var i = 0
        while i < ranges.count {
            if ranges[i].lowerBound <= register && register <= ranges[i].upperBound { return true }
            i += 1
        }
        return false
    }

    private static func mask(_ entries: [(register: UInt8, mask: UInt8)], _ register: UInt8) -> UInt8? {
        var i = 0
        while i < entries.count {
            if entries[i].register == register { return entries[i].mask }
            i += 1
        }
        return nil
    }

    /// The sub-address byte that starts a transfer of `count` bytes at `register`.
    @inlinable package func subAddress(_ register: UInt8, count: Int) -> UInt8 {
        switch autoIncrement {
        case .always: return register
        case let .whenSubAddressBit(bit): return count > 1 ? register | bit : register
        }
    }

    /// What a part makes of a sub-address byte: the register, and whether a burst advances.
    @inlinable package func decode(subAddress: UInt8) -> (register: UInt8, increments: Bool) {
        switch autoIncrement {
        case .always: return (subAddress, !isPort(subAddress))
        case let .whenSubAddressBit(bit):
            let register = subAddress & ~bit
            return (register, subAddress & bit != 0 && !isPort(register))
        }
    }
}

/// How a banked register file switches banks: one select register present at the same address
/// in every bank, the bank number in a field of it.
package struct RegisterBanks: Sendable {
    /// The select register (ICM-20948 REG_BANK_SEL 0x7F), readable and writable in every bank.
    package var selectRegister: UInt8
    /// The field's lowest bit (ICM-20948 USER_BANK [5:4]: 4).
    package var shift: UInt8
    /// Banks 1, 2, …: each one's own map (which registers a write changes, which are volatile,
    /// their power-on values and read-back masks).
    package var others: [RegisterMap]

    package init(selectRegister: UInt8, shift: UInt8, others: [RegisterMap]) {
        self.selectRegister = selectRegister; self.shift = shift; self.others = others
    }

    /// The select register's value for `bank`.
    @inlinable package func selectValue(_ bank: Int) -> UInt8 { UInt8(bank) << shift }

    /// The bank a select register value names, nil when it names none (reserved bits set, or
    /// past the last bank).
    package func bank(selectValue value: UInt8) -> Int? {
        let bank = Int(value >> shift)
        guard value & ~(0xFF << shift) == 0, bank <= others.count else { return nil }
        return bank
    }
}
