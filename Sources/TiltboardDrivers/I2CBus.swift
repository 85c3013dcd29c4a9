/// How the bytes of a transfer's read phase map onto the chip's registers, so an adapter that
/// must split a long read (SMBus-only adapters carry at most 32 bytes per block transfer) knows
/// which sub-address each piece starts at. A combined I²C transfer ignores it.
public enum I2CReadPattern: Sendable, Equatable {
    /// The register pointer advances one per byte: a piece at offset n starts at sub-address + n
    /// (the convention bits the sub-address carries, such as the LIS3DH's bit 7, are kept).
    case incrementing
    /// Every `period` bytes come from the same registers again (a FIFO data port: period 1; a
    /// pointer that rolls back after one frame: the frame size): pieces are whole periods and
    /// each starts at the same sub-address.
    case repeating(period: Int)
}

/// An I²C bus as a driver sees it: one transaction primitive.
///
/// Implemented by the Linux bus (`/dev/i2c-N`) and by the simulator. Every failure throws an
/// `I2CError`. Implementations are used from one thread at a time. Drivers talk to a chip
/// through a `RegisterDevice`, which builds these transfers from register reads and writes.
public protocol I2CBus: AnyObject {
    /// Names the bus in messages: `/dev/i2c-1`, `simulated`.
    var name: String { get }

    /// One transaction with the device at the 7-bit `address`: START, address+W, the `write`
    /// bytes; then, when `read` is not empty, a repeated START (START when nothing was written),
    /// address+R and `read.count` bytes; STOP. The first written byte is the chip's
    /// sub-address (register pointer) for register-based chips.
    ///
    /// Adapters without plain I²C may split the read as `pattern` allows (see `I2CReadPattern`).
    func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                  pattern: I2CReadPattern) throws

    /// Gives the bus device back; transfers after it fail. Safe to call more than once.
    func close()
}

extension I2CBus {
    /// A bus with nothing to give back (a wrapper, a test double) closes nothing.
    public func close() {}

    /// Sub-address `register`, repeated START, `buffer.count` bytes (`pattern` as the chip walks them).
    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer,
                     pattern: I2CReadPattern = .incrementing) throws {
        var sub = register
        try withUnsafeBytes(of: &sub) {
            try transfer(address: address, write: $0, read: buffer, pattern: pattern)
        }
    }

    /// Reads `count` consecutive registers starting at `register` in one transaction.
    public func read(address: UInt8, register: UInt8, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        try out.withUnsafeMutableBytes { try read(address: address, register: register, into: $0) }
        return out
    }

    /// Reads one register.
    public func readByte(address: UInt8, register: UInt8) throws -> UInt8 {
        var value: UInt8 = 0
        try withUnsafeMutableBytes(of: &value) { try read(address: address, register: register, into: $0) }
        return value
    }

    /// Writes `bytes` to consecutive registers starting at `register` in one transaction
    /// (sub-address and data in one message). Allocates: drivers write through `RegisterDevice`.
    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) throws {
        try ([register] + bytes).withUnsafeBytes {
            try transfer(address: address, write: $0, read: UnsafeMutableRawBufferPointer(start: nil, count: 0),
                         pattern: .incrementing)
        }
    }

    /// Writes one register.
    public func writeByte(address: UInt8, register: UInt8, value: UInt8) throws {
        var pair = (register, value)
        try withUnsafeBytes(of: &pair) {
            try transfer(address: address, write: $0, read: UnsafeMutableRawBufferPointer(start: nil, count: 0),
                         pattern: .incrementing)
        }
    }
}
