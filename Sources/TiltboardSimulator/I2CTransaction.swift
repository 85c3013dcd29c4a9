import TiltboardDrivers
import TiltboardCore

/// One transaction as the simulated bus saw it, for asserting exact bus traffic in tests.
public struct I2CTransaction: Equatable, Sendable, CustomStringConvertible {
    /// Direction of the data phase.
    public enum Kind: String, Equatable, Sendable {
        /// Data read from the device, or written to it.
        case read, write
    }

    /// The direction of the data phase.
    public var kind: Kind
    /// 7-bit device address.
    public var address: UInt8
    /// The register the transaction started at.
    public var register: UInt8
    /// Bytes read or written (for a failed read: none).
    public var bytes: [UInt8]
    /// Set when the transaction failed.
    public var error: I2CError.Kind?

    /// A transaction from its fields.
    public init(kind: Kind, address: UInt8, register: UInt8, bytes: [UInt8], error: I2CError.Kind? = nil) {
        self.kind = kind; self.address = address; self.register = register
        self.bytes = bytes; self.error = error
    }

    public var description: String {
        let data = bytes.map(\.hex).joined(separator: " ")
        let failure = error.map { " failed: \($0.rawValue)" } ?? ""
        return "\(kind.rawValue) \(address.hex) reg \(register.hex) [\(data)]\(failure)"
    }
}
