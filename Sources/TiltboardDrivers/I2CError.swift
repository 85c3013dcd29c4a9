/// A failed I²C transaction: its kind, where it failed, and what the kernel said.
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, independent of the platform (after embedded-hal's error kinds).
    public enum Kind: String, Sendable, Equatable {
        /// The bus device does not exist (`ENOENT`).
        case noSuchBus
        /// The bus device exists but this user may not open it (`EACCES`, `EPERM`).
        case permissionDenied
        /// Nothing acknowledged the address (`ENXIO`, `ENODEV`, `EREMOTEIO` on the address).
        case noAcknowledgeAddress
        /// The device stopped acknowledging during the data phase.
        case noAcknowledgeData
        /// Bus error or I/O error (`EIO`, `EBUSY`).
        case bus
        /// Lost arbitration to another master (`EAGAIN`).
        case arbitrationLost
        /// The adapter timed out (`ETIMEDOUT`).
        case timeout
        /// The adapter cannot do the transfer asked of it (`EOPNOTSUPP`).
        case unsupported
        /// Anything else.
        case other
    }

    /// Why an adapter cannot do a transfer asked of it (`Kind.unsupported`).
    public enum Refusal: Sendable, Equatable {
        /// The adapter offers neither plain I²C nor SMBus byte-data transfers: its functionality mask.
        case noUsableTransfers(functionality: UInt32)
        /// An SMBus-only adapter was asked to send `bytes` bytes before a read (SMBus sends one, the sub-address).
        case smbusWriteBeforeRead(bytes: Int)
        /// A transfer of `bytes` bytes, longer than the kernel's 8192-byte `I2C_RDWR` message.
        case messageTooLong(bytes: Int)
        /// The simulated bus was asked to send `dataBytes` data bytes after the sub-address, before a repeated-start read.
        case simulatedDataBeforeRead(dataBytes: Int)
    }

    /// What a failure was when no errno says it: a transfer cut short, or the simulated bus.
    public enum Cause: Sendable, Equatable {
        /// An SMBus block read gave `read` of the `expected` bytes.
        case shortRead(read: Int, expected: Int)
        /// An `I2C_RDWR` transfer completed `transferred` of its `messages` messages.
        case partialTransfer(transferred: Int, messages: Int)
        /// The simulated bus has no device at the address.
        case simulatedNoDevice
        /// A simulated fault of a kind no kernel errno stands for.
        case simulatedFault
    }

    /// What went wrong.
    public var kind: Kind
    /// The bus device path (`/dev/i2c-1`) or `simulated`.
    public var device: String
    /// 7-bit address, when the failure concerns one device.
    public var address: UInt8?
    /// First register of the transaction, when known.
    public var register: UInt8?
    /// The errno the kernel returned, when there was one.
    public var errno: Int32?
    /// The kernel's text for `errno` (on the simulated bus, with ` (simulated)` after it).
    public var detail: String?
    /// Why the adapter refused the transfer, for `Kind.unsupported`.
    public var refusal: Refusal?
    /// What the failure was when no errno says it.
    public var cause: Cause?

    /// An error of `kind` on `device`, with what else is known.
    public init(kind: Kind, device: String, address: UInt8? = nil, register: UInt8? = nil,
                errno: Int32? = nil, detail: String? = nil, refusal: Refusal? = nil, cause: Cause? = nil) {
        self.kind = kind; self.device = device; self.address = address
        self.register = register; self.errno = errno; self.detail = detail; self.refusal = refusal; self.cause = cause
    }

    /// The kind and the fields that are known, for a log:
    /// `I2CError(bus, device: /dev/i2c-1, address: 0x68, register: 0x3b, errno: 5)`. A program
    /// words it for people, and says what to do about it.
    public var description: String {
        var fields = ["\(kind.rawValue)", "device: \(device)"]
        if let address { fields.append("address: \(address.hex)") }
        if let register { fields.append("register: \(register.hex)") }
        if let errno { fields.append("errno: \(errno)") }
        if let detail { fields.append("detail: \(detail)") }
        if let refusal { fields.append("refusal: \(refusal)") }
        if let cause { fields.append("cause: \(cause)") }
        return "I2CError(" + fields.joined(separator: ", ") + ")"
    }
}
