/// An I²C bus as a driver sees it: register reads and writes, each one bus transaction.
///
/// Implemented by the Linux bus (`/dev/i2c-N`) and by the simulator. Every failure throws an
/// `I2CError`. Implementations are used from one thread at a time.
public protocol I2CBus: AnyObject {
    /// Names the bus in messages: `/dev/i2c-1`, `simulated`.
    var name: String { get }

    /// One transaction: START, address+W, `register`, repeated START, address+R, then
    /// `buffer.count` bytes (auto-incrementing registers on both chips), STOP.
    ///
    /// Adapters without plain I²C may split reads over 32 bytes into several SMBus block reads.
    func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws

    /// One transaction: START, address+W, `register`, `bytes`…, STOP.
    func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws

    /// Like `read`, for a register that does not auto-increment (a FIFO data port): every byte
    /// comes from `register`, so an adapter that splits the read repeats `register` each time.
    func readFIFO(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws
}

extension I2CBus {
    /// One plain transaction reads a FIFO port correctly: the chip keeps the pointer on it.
    public func readFIFO(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try read(address: address, register: register, into: buffer)
    }
}

extension I2CBus {
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

    /// Writes consecutive registers starting at `register` in one transaction.
    public func write(address: UInt8, register: UInt8, bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write(address: address, register: register, bytes: $0) }
    }

    /// Writes one register.
    public func writeByte(address: UInt8, register: UInt8, value: UInt8) throws {
        try withUnsafeBytes(of: value) { try write(address: address, register: register, bytes: $0) }
    }
}
