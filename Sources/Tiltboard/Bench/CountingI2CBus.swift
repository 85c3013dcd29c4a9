import TiltboardDrivers

/// Forwards every transaction to another bus and counts them, so the traffic per sample can be
/// measured on real hardware the same way as on the simulator.
public final class CountingI2CBus: I2CBus {
    /// The bus transactions go to.
    public let base: I2CBus
    /// Transactions attempted, failed ones included.
    public private(set) var transactionCount = 0
    /// Data bytes of successful transactions (register address bytes excluded).
    public private(set) var bytesTransferred = 0

    public init(_ base: I2CBus) { self.base = base }

    public var name: String { base.name }

    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        transactionCount += 1
        try base.read(address: address, register: register, into: buffer)
        bytesTransferred += buffer.count
    }

    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        transactionCount += 1
        try base.write(address: address, register: register, bytes: bytes)
        bytesTransferred += bytes.count
    }

    public func readFIFO(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        transactionCount += 1
        try base.readFIFO(address: address, register: register, into: buffer)
        bytesTransferred += buffer.count
    }

    /// Zeroes the counters.
    public func resetCounters() {
        transactionCount = 0
        bytesTransferred = 0
    }
}
