#if canImport(Glibc)
import Glibc
#endif
import CI2C
@testable import TiltboardLinux

// i2c-dev ioctl requests, re-declared from linux/i2c-dev.h.
let I2C_SLAVE_REQUEST: UInt = 0x0703
let I2C_FUNCS_REQUEST: UInt = 0x0705
let I2C_RDWR_REQUEST: UInt = 0x0707

/// One i2c_msg as the fake adapter saw it.
struct RecordedMessage: Equatable, CustomStringConvertible {
    var address: UInt16
    var flags: UInt16
    var length: Int
    /// Payload of a write message; empty for reads.
    var written: [UInt8]
    var description: String { "msg(\(address), flags \(flags), len \(length), \(written))" }
}

/// A syscall the bus made.
enum Call: Equatable {
    case open(String)
    case close(Int32)
    case ioctl(UInt, UInt8?)              // request, argument (I2C_SLAVE address)
    case rdwr([RecordedMessage])          // ioctl(I2C_RDWR)
    case smbusReadBlock(UInt8, Int)
    case smbusWriteBlock(UInt8, [UInt8])
    case smbusReadByte(UInt8)
    case smbusWriteByte(UInt8, UInt8)
}

/// A fake `/dev/i2c-N`: a register file per address, the functionality mask it is given,
/// and errno failures queued for the next calls. Records every syscall.
final class FakeAdapter: I2CDeviceIO {
    var calls: [Call] = []
    var functionalityMask: UInt
    var openErrno: Int32?
    /// errno values the next data transfers (RDWR or SMBus) fail with, in order.
    var failures: [Int32] = []
    var slaveFailures: [Int32] = []
    /// Bytes a short SMBus block read returns instead of the full count.
    var shortRead: Int?
    let fd: Int32 = 7

    init(functionality: UInt) { functionalityMask = functionality }

    /// Register `r` holds `r ^ 0xA5`.
    func value(_ register: UInt8) -> UInt8 { register ^ 0xA5 }

    func open(_ path: String) -> Int32 {
        calls.append(.open(path))
        if let e = openErrno { return -e }
        return fd
    }

    func close(_ fd: Int32) { calls.append(.close(fd)) }

    func functionality(_ fd: Int32, mask: inout UInt) -> Int32 {
        calls.append(.ioctl(I2C_FUNCS_REQUEST, nil))
        mask = functionalityMask
        return 0
    }

    func setSlaveAddress(_ fd: Int32, _ address: UInt8) -> Int32 {
        calls.append(.ioctl(I2C_SLAVE_REQUEST, address))
        if !slaveFailures.isEmpty { return -slaveFailures.removeFirst() }
        return 0
    }

    private func failure() -> Int32? { failures.isEmpty ? nil : -failures.removeFirst() }

    func transfer(_ fd: Int32, _ messages: UnsafeMutableBufferPointer<i2c_msg>) -> Int32 {
        var recorded: [RecordedMessage] = []
        var pointer: UInt8 = 0
        for m in messages {
            let isRead = m.flags & UInt16(I2C_M_RD) != 0
            var written: [UInt8] = []
            if !isRead {
                written = Array(UnsafeBufferPointer(start: m.buf, count: Int(m.len)))
                if let first = written.first { pointer = first }
            }
            recorded.append(RecordedMessage(address: m.addr, flags: m.flags, length: Int(m.len), written: written))
        }
        calls.append(.rdwr(recorded))
        if let e = failure() { return e }
        for m in messages where m.flags & UInt16(I2C_M_RD) != 0 {
            for i in 0..<Int(m.len) { m.buf[i] = value(pointer &+ UInt8(truncatingIfNeeded: i)) }
        }
        return Int32(messages.count)
    }

    func smbusReadI2CBlock(_ fd: Int32, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int32 {
        calls.append(.smbusReadBlock(register, buffer.count))
        if let e = failure() { return e }
        let n = shortRead ?? buffer.count
        for i in 0..<n { buffer[i] = value(register &+ UInt8(truncatingIfNeeded: i)) }
        return Int32(n)
    }

    func smbusWriteI2CBlock(_ fd: Int32, register: UInt8, bytes: UnsafeRawBufferPointer) -> Int32 {
        calls.append(.smbusWriteBlock(register, Array(bytes)))
        return failure() ?? 0
    }

    func smbusReadByteData(_ fd: Int32, register: UInt8) -> Int32 {
        calls.append(.smbusReadByte(register))
        return failure() ?? Int32(value(register))
    }

    func smbusWriteByteData(_ fd: Int32, register: UInt8, value: UInt8) -> Int32 {
        calls.append(.smbusWriteByte(register, value))
        return failure() ?? 0
    }
}
