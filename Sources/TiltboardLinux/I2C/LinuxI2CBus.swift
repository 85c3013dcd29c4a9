#if canImport(Glibc)
import Glibc
#endif
import CI2C
import TiltboardDrivers

/// An I²C bus device `/dev/i2c-N` through the kernel's i2c-dev interface.
///
/// Reads are one combined `I2C_RDWR` transfer (register write, repeated START, read) when the
/// adapter does plain I²C; adapters limited to SMBus (e.g. i2c-stub) get I2C-block transfers of
/// at most 32 bytes, or single byte-data transfers when that is all they offer.
public final class LinuxI2CBus: I2CBus {
    /// How transfers reach the adapter, picked once from `I2C_FUNCS`.
    enum Mode: Equatable { case plainI2C, smbusBlock, smbusByte }

    /// The device path, e.g. `/dev/i2c-1`.
    public let name: String
    /// The adapter's `I2C_FUNCS` mask.
    public let functionality: UInt
    let readMode: Mode
    let writeMode: Mode
    private let io: I2CDeviceIO
    // -1 once closed: a transfer then fails rather than reach a descriptor reused for another file.
    private var fd: Int32
    // I2C_SLAVE is a syscall; SMBus transfers need it only when the address changes.
    private var selectedAddress: UInt8?

    /// SMBus block transfers carry at most this many data bytes.
    static let smbusBlockMax = 32

    /// Opens `path` (`/dev/i2c-1`) and reads what the adapter can do.
    public convenience init(path: String) throws {
        try self.init(path: path, io: SystemI2CDeviceIO())
    }

    init(path: String, io: I2CDeviceIO) throws {
        let fd = io.open(path)
        guard fd >= 0 else { throw I2CError(errno: -fd, device: path) }
        var mask: UInt = 0
        let r = io.functionality(fd, mask: &mask)
        guard r >= 0 else {
            io.close(fd)
            throw I2CError(errno: -r, device: path)
        }
        let i2c = mask & UInt(I2C_FUNC_I2C) != 0
        let readMode: Mode? = i2c ? .plainI2C
            : mask & UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK) != 0 ? .smbusBlock
            : mask & UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA) != 0 ? .smbusByte : nil
        let writeMode: Mode? = i2c ? .plainI2C
            : mask & UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK) != 0 ? .smbusBlock
            : mask & UInt(I2C_FUNC_SMBUS_WRITE_BYTE_DATA) != 0 ? .smbusByte : nil
        guard let readMode, let writeMode else {
            io.close(fd)
            throw I2CError(kind: .unsupported, device: path,
                           refusal: .noUsableTransfers(functionality: UInt32(truncatingIfNeeded: mask)))
        }
        self.name = path; self.io = io; self.fd = fd; self.functionality = mask
        self.readMode = readMode; self.writeMode = writeMode
    }

    deinit { close() }

    /// Closes the device (once); transfers after it fail with EBADF.
    public func close() {
        guard fd >= 0 else { return }
        io.close(fd)
        fd = -1
    }

    public func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                         pattern: I2CReadPattern) throws {
        // Indexing, not `first`/`dropFirst()`: generic collection calls can allocate in debug builds.
        let register = write.isEmpty ? 0 : write[0]
        guard fd >= 0 else { throw I2CError(errno: EBADF, device: name, address: address, register: register) }
        if read.isEmpty {
            guard !write.isEmpty else { return }
            switch writeMode {
            case .plainI2C:
                try checkLength(write.count, address: address, register: register)
                try withUnsafeTemporaryAllocation(of: i2c_msg.self, capacity: 1) { msgs in
                    msgs[0] = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(write.count),
                                      buf: UnsafeMutablePointer(mutating: write.baseAddress!.assumingMemoryBound(to: UInt8.self)))
                    try transfer(msgs, address: address, register: register)
                }
            case .smbusBlock, .smbusByte:
                try smbusWrite(address: address, register: register,
                               bytes: UnsafeRawBufferPointer(start: write.baseAddress! + 1, count: write.count - 1))
            }
            return
        }
        switch readMode {
        case .plainI2C:
            try checkLength(read.count, address: address, register: register)
            // One combined transfer: the sub-address write, a repeated START, the read.
            try withUnsafeTemporaryAllocation(of: i2c_msg.self, capacity: 2) { msgs in
                var n = 0
                if !write.isEmpty {
                    msgs[n] = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(write.count),
                                      buf: UnsafeMutablePointer(mutating: write.baseAddress!.assumingMemoryBound(to: UInt8.self)))
                    n += 1
                }
                msgs[n] = i2c_msg(addr: UInt16(address), flags: UInt16(I2C_M_RD), len: UInt16(read.count),
                                  buf: read.baseAddress!.assumingMemoryBound(to: UInt8.self))
                n += 1
                try transfer(UnsafeMutableBufferPointer(rebasing: msgs[0..<n]), address: address, register: register)
            }
        case .smbusBlock, .smbusByte:
            // SMBus reads name one command byte: the sub-address.
            guard write.count == 1 else {
                throw I2CError(kind: .unsupported, device: name, address: address, register: register,
                               refusal: .smbusWriteBeforeRead(bytes: write.count))
            }
            try smbusRead(address: address, register: register, into: read, pattern: pattern)
        }
    }

    /// Bus devices present on this machine (`/dev/i2c-1`, …), in numeric order, for messages.
    public static func availableBuses() -> [String] {
        availableBuses(in: "/dev")
    }

    static func availableBuses(in directory: String) -> [String] {
        busNumbers(in: directory).map { "\(directory)/i2c-\($0)" }
    }

    /// The numbers N of the entries named `i2c-N` in `directory` (/dev, or sysfs's adapter
    /// folders), in numeric order; none when it cannot be read.
    static func busNumbers(in directory: String) -> [Int] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("i2c-"), let n = Int(name.dropFirst(4)), n >= 0 { numbers.append(n) }
        }
        return numbers.sorted()
    }

    // MARK: - Transfers

    /// A read split into SMBus transfers as `pattern` allows: I2C-block reads of at most 32
    /// bytes (whole periods of a repeating pattern), or single byte-data reads.
    private func smbusRead(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer,
                           pattern: I2CReadPattern) throws {
        try select(address)
        func command(at offset: Int) -> UInt8 {
            switch pattern {
            case .incrementing: return register &+ UInt8(truncatingIfNeeded: offset)
            case .repeating: return register
            }
        }
        if readMode == .smbusByte {
            let period: Int
            switch pattern {
            case .incrementing: period = 0
            case let .repeating(p): period = p
            }
            for i in 0..<buffer.count {
                // A period longer than one byte cannot be walked one command at a time.
                let reg = period > 1 ? register &+ UInt8(truncatingIfNeeded: i % period) : command(at: i)
                let r = io.smbusReadByteData(fd, register: reg)
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
                buffer[i] = UInt8(truncatingIfNeeded: r)
            }
            return
        }
        var chunkMax = Self.smbusBlockMax
        if case let .repeating(period) = pattern, period > 1, period <= Self.smbusBlockMax {
            chunkMax = Self.smbusBlockMax / period * period
        }
        var offset = 0
        while offset < buffer.count {
            let n = Swift.min(chunkMax, buffer.count - offset)
            let reg = command(at: offset)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + n)])
            let r = io.smbusReadI2CBlock(fd, register: reg, into: chunk)
            if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
            if Int(r) != n {
                throw I2CError(kind: .noAcknowledgeData, device: name, address: address, register: reg,
                               cause: .shortRead(read: Int(r), expected: n))
            }
            offset += n
        }
    }

    /// A register write as SMBus I2C-block writes of at most 32 bytes, or byte-data writes.
    private func smbusWrite(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        try select(address)
        if writeMode == .smbusByte {
            for i in 0..<bytes.count {
                let reg = register &+ UInt8(truncatingIfNeeded: i)
                let r = io.smbusWriteByteData(fd, register: reg, value: bytes[i])
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
            }
            return
        }
        var offset = 0
        while offset < bytes.count {
            let n = Swift.min(Self.smbusBlockMax, bytes.count - offset)
            let reg = register &+ UInt8(truncatingIfNeeded: offset)
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])
            let r = io.smbusWriteI2CBlock(fd, register: reg, bytes: chunk)
            if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
            offset += n
        }
    }

    private func transfer(_ msgs: UnsafeMutableBufferPointer<i2c_msg>, address: UInt8, register: UInt8) throws {
        let r = io.transfer(fd, msgs)
        if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: register) }
        if Int(r) != msgs.count {
            throw I2CError(kind: .noAcknowledgeData, device: name, address: address, register: register,
                           cause: .partialTransfer(transferred: Int(r), messages: msgs.count))
        }
    }

    private func select(_ address: UInt8) throws {
        guard selectedAddress != address else { return }
        let r = io.setSlaveAddress(fd, address)
        if r < 0 {
            selectedAddress = nil
            throw I2CError(errno: -r, device: name, address: address)
        }
        selectedAddress = address
    }

    // The kernel caps one I2C_RDWR message at 8192 bytes (i2c-dev `I2C_RDWR` check).
    private func checkLength(_ count: Int, address: UInt8, register: UInt8) throws {
        if count > 8192 {
            throw I2CError(kind: .unsupported, device: name, address: address, register: register,
                           refusal: .messageTooLong(bytes: count))
        }
    }
}
