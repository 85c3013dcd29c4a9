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
    private let fd: Int32
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
                           detail: "adapter offers neither plain I²C nor SMBus byte-data transfers (functionality 0x\(String(mask, radix: 16)))")
        }
        self.name = path; self.io = io; self.fd = fd; self.functionality = mask
        self.readMode = readMode; self.writeMode = writeMode
    }

    deinit { io.close(fd) }

    public func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try read(address: address, register: register, into: buffer, autoIncrement: true)
    }

    public func readFIFO(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        try read(address: address, register: register, into: buffer, autoIncrement: false)
    }

    public func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        switch writeMode {
        case .plainI2C:
            // One message: the register byte followed by the data, so the chip sees one write.
            let count = bytes.count + 1
            try checkLength(count, address: address, register: register)
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { out in
                out[0] = register
                for i in 0..<bytes.count { out[i + 1] = bytes[i] }
                try withUnsafeTemporaryAllocation(of: i2c_msg.self, capacity: 1) { msgs in
                    msgs[0] = i2c_msg(addr: UInt16(address), flags: 0, len: UInt16(count), buf: out.baseAddress)
                    try transfer(msgs, address: address, register: register)
                }
            }
        case .smbusBlock:
            try select(address)
            var offset = 0
            while offset < bytes.count {
                let n = Swift.min(Self.smbusBlockMax, bytes.count - offset)
                let reg = register &+ UInt8(truncatingIfNeeded: offset)
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])
                let r = io.smbusWriteI2CBlock(fd, register: reg, bytes: chunk)
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
                offset += n
            }
        case .smbusByte:
            try select(address)
            for i in 0..<bytes.count {
                let reg = register &+ UInt8(truncatingIfNeeded: i)
                let r = io.smbusWriteByteData(fd, register: reg, value: bytes[i])
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
            }
        }
    }

    /// Bus devices present on this machine (`/dev/i2c-1`, …), in numeric order, for messages.
    public static func availableBuses() -> [String] {
        availableBuses(in: "/dev")
    }

    static func availableBuses(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("i2c-"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
        }
        return numbers.sorted().map { "\(directory)/i2c-\($0)" }
    }

    // MARK: - Transfers

    private func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer,
                      autoIncrement: Bool) throws {
        guard buffer.count > 0 else { return }
        switch readMode {
        case .plainI2C:
            try checkLength(buffer.count, address: address, register: register)
            var reg = register
            try withUnsafeMutablePointer(to: &reg) { regPointer in
                try withUnsafeTemporaryAllocation(of: i2c_msg.self, capacity: 2) { msgs in
                    msgs[0] = i2c_msg(addr: UInt16(address), flags: 0, len: 1, buf: regPointer)
                    msgs[1] = i2c_msg(addr: UInt16(address), flags: UInt16(I2C_M_RD), len: UInt16(buffer.count),
                                      buf: buffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    try transfer(msgs, address: address, register: register)
                }
            }
        case .smbusBlock:
            try select(address)
            var offset = 0
            while offset < buffer.count {
                let n = Swift.min(Self.smbusBlockMax, buffer.count - offset)
                let reg = autoIncrement ? register &+ UInt8(truncatingIfNeeded: offset) : register
                let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + n)])
                let r = io.smbusReadI2CBlock(fd, register: reg, into: chunk)
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
                if Int(r) != n {
                    throw I2CError(kind: .noAcknowledgeData, device: name, address: address, register: reg,
                                   detail: "short read: \(r) of \(n) bytes")
                }
                offset += n
            }
        case .smbusByte:
            try select(address)
            for i in 0..<buffer.count {
                let reg = autoIncrement ? register &+ UInt8(truncatingIfNeeded: i) : register
                let r = io.smbusReadByteData(fd, register: reg)
                if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: reg) }
                buffer[i] = UInt8(truncatingIfNeeded: r)
            }
        }
    }

    private func transfer(_ msgs: UnsafeMutableBufferPointer<i2c_msg>, address: UInt8, register: UInt8) throws {
        let r = io.transfer(fd, msgs)
        if r < 0 { throw I2CError(errno: -r, device: name, address: address, register: register) }
        if Int(r) != msgs.count {
            throw I2CError(kind: .noAcknowledgeData, device: name, address: address, register: register,
                           detail: "only \(r) of \(msgs.count) messages transferred")
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
                           detail: "transfer of \(count) bytes exceeds the 8192-byte message limit")
        }
    }
}
