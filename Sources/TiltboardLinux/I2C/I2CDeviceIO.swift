#if canImport(Glibc)
import Glibc
#endif
import CI2C

/// Every syscall `LinuxI2CBus` makes, behind one seam so tests can stand in a fake adapter.
///
/// Results are ≥ 0 on success and −errno on failure, so callers never read the global `errno`
/// after another call may have changed it.
protocol I2CDeviceIO: AnyObject {
    /// `open(path, O_RDWR | O_CLOEXEC)`: a descriptor or −errno.
    func open(_ path: String) -> Int32
    func close(_ fd: Int32)
    /// `ioctl(I2C_FUNCS)`: 0 with the adapter's functionality mask in `mask`, or −errno.
    func functionality(_ fd: Int32, mask: inout UInt) -> Int32
    /// `ioctl(I2C_SLAVE, address)`: 0 or −errno.
    func setSlaveAddress(_ fd: Int32, _ address: UInt8) -> Int32
    /// `ioctl(I2C_RDWR)` with `messages` as one combined transfer: messages done, or −errno.
    func transfer(_ fd: Int32, _ messages: UnsafeMutableBufferPointer<i2c_msg>) -> Int32
    /// libi2c `i2c_smbus_read_i2c_block_data` (≤ 32 bytes): bytes read, or −errno.
    func smbusReadI2CBlock(_ fd: Int32, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int32
    /// libi2c `i2c_smbus_write_i2c_block_data` (≤ 32 bytes): 0 or −errno.
    func smbusWriteI2CBlock(_ fd: Int32, register: UInt8, bytes: UnsafeRawBufferPointer) -> Int32
    /// libi2c `i2c_smbus_read_byte_data`: the byte, or −errno.
    func smbusReadByteData(_ fd: Int32, register: UInt8) -> Int32
    /// libi2c `i2c_smbus_write_byte_data`: 0 or −errno.
    func smbusWriteByteData(_ fd: Int32, register: UInt8, value: UInt8) -> Int32
}


/// The real syscalls, through Glibc and libi2c.
final class SystemI2CDeviceIO: I2CDeviceIO {
    // −errno for a failed call, the result otherwise.
    @inline(__always) private func checked(_ result: Int32) -> Int32 {
        result < 0 ? -Glibc.errno : result
    }

    func open(_ path: String) -> Int32 {
        retryingNegatedEINTR { checked(Glibc.open(path, O_RDWR | O_CLOEXEC)) }
    }

    func close(_ fd: Int32) { _ = Glibc.close(fd) }

    func functionality(_ fd: Int32, mask: inout UInt) -> Int32 {
        var funcs: UInt = 0
        let r = retryingNegatedEINTR { checked(ioctl(fd, UInt(I2C_FUNCS), &funcs)) }
        mask = funcs
        return r
    }

    func setSlaveAddress(_ fd: Int32, _ address: UInt8) -> Int32 {
        retryingNegatedEINTR { checked(ioctl(fd, UInt(I2C_SLAVE), CInt(address))) }
    }

    func transfer(_ fd: Int32, _ messages: UnsafeMutableBufferPointer<i2c_msg>) -> Int32 {
        var data = i2c_rdwr_ioctl_data(msgs: messages.baseAddress, nmsgs: UInt32(messages.count))
        return retryingNegatedEINTR { checked(ioctl(fd, UInt(I2C_RDWR), &data)) }
    }

    // libi2c returns −errno itself (i2c-tools ≥ 4.0) and leaves errno set; both are accepted.
    @inline(__always) private func smbus(_ result: Int32) -> Int32 {
        result < 0 ? (result == -1 ? -Glibc.errno : result) : result
    }

    func smbusReadI2CBlock(_ fd: Int32, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int32 {
        let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return retryingNegatedEINTR {
            smbus(i2c_smbus_read_i2c_block_data(fd, register, UInt8(buffer.count), base))
        }
    }

    func smbusWriteI2CBlock(_ fd: Int32, register: UInt8, bytes: UnsafeRawBufferPointer) -> Int32 {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        return retryingNegatedEINTR {
            smbus(i2c_smbus_write_i2c_block_data(fd, register, UInt8(bytes.count), base))
        }
    }

    func smbusReadByteData(_ fd: Int32, register: UInt8) -> Int32 {
        retryingNegatedEINTR { smbus(i2c_smbus_read_byte_data(fd, register)) }
    }

    func smbusWriteByteData(_ fd: Int32, register: UInt8, value: UInt8) -> Int32 {
        retryingNegatedEINTR { smbus(i2c_smbus_write_byte_data(fd, register, value)) }
    }
}
