import TiltboardDrivers

/// Forwards every transaction to another bus and counts them, so the traffic per sample can be
/// measured on real hardware the same way as on the simulator.
package final class CountingI2CBus: I2CBus {
    /// The bus transactions go to.
    package let base: I2CBus
    /// Transactions attempted, failed ones included.
    package private(set) var transactionCount = 0
    /// Data bytes of successful transactions (register address bytes excluded).
    package private(set) var bytesTransferred = 0
    /// SCL clocks of successful transactions as the I²C-bus specification frames them
    /// (`I2CTransferShape.clocks`): what their bus time at any clock is worked out from.
    package private(set) var clocks = 0

    package init(_ base: I2CBus) { self.base = base }

    package var name: String { base.name }

    package func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                         pattern: I2CReadPattern) throws {
        transactionCount += 1
        try base.transfer(address: address, write: write, read: read, pattern: pattern)
        // The sub-address byte is not data.
        bytesTransferred += Swift.max(write.count - 1, 0) + read.count
        clocks += I2CTransferShape(writeBytes: write.count, readBytes: read.count).clocks
    }

    /// Zeroes the counters.
    package func resetCounters() {
        transactionCount = 0
        bytesTransferred = 0
        clocks = 0
    }
}
