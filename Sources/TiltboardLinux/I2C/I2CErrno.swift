#if canImport(Glibc)
import Glibc
#endif
import TiltboardDrivers

extension I2CError {
    /// The error for a failed syscall on `device`, carrying errno and the kernel's text for it.
    init(errno e: Int32, device: String, address: UInt8? = nil, register: UInt8? = nil) {
        self.init(kind: I2CFaultCodes.kind(errno: e), device: device, address: address, register: register,
                  errno: e, detail: String(cString: strerror(e)))
    }
}
