#if canImport(Glibc)
import Glibc
#endif

/// An errno value from a GPIO call, kept so messages can quote the kernel's own words.
struct GPIOErrno: Error, Sendable, Equatable {
    var code: Int32

    static func current() -> GPIOErrno { GPIOErrno(code: errno) }

    /// `strerror` text, e.g. `Device or resource busy`.
    var text: String { String(cString: strerror(code)) }

    var isPermission: Bool { code == EACCES || code == EPERM }
}
