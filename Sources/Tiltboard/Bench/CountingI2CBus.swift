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

    public func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                         pattern: I2CReadPattern) throws {
        transactionCount += 1
        try base.transfer(address: address, write: write, read: read, pattern: pattern)
        // The sub-address byte is not data.
        bytesTransferred += Swift.max(write.count - 1, 0) + read.count
    }

    /// Zeroes the counters.
    public func resetCounters() {
        transactionCount = 0
        bytesTransferred = 0
    }
}
