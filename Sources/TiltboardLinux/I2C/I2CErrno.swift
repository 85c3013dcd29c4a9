#if canImport(Glibc)
import Glibc
#endif
import TiltboardDrivers

extension I2CError.Kind {
    /// The platform-independent kind of a Linux i2c-dev errno (after linux-embedded-hal's mapping).
    init(errno e: Int32) {
        switch e {
        case ENOENT: self = .noSuchBus
        case EACCES, EPERM: self = .permissionDenied
        case ENXIO, ENODEV, EREMOTEIO: self = .noAcknowledgeAddress
        case EIO, EBUSY: self = .bus
        case EAGAIN: self = .arbitrationLost
        case ETIMEDOUT: self = .timeout
        case EOPNOTSUPP: self = .unsupported
        default: self = .other
        }
    }
}

extension I2CError {
    /// The error for a failed syscall on `device`, carrying errno and the kernel's text for it.
    init(errno e: Int32, device: String, address: UInt8? = nil, register: UInt8? = nil) {
        self.init(kind: Kind(errno: e), device: device, address: address, register: register,
                  errno: e, detail: String(cString: strerror(e)))
    }
}
