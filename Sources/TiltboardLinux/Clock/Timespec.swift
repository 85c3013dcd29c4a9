#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TiltboardCore

extension timespec {
    /// A clock instant or span of `nanoseconds`. time_t and long are 32-bit on 32-bit Pi OS;
    /// seconds since boot fit either way.
    init(nanoseconds: UInt64) {
        let (seconds, rest) = Nanoseconds.split(nanoseconds)
        self.init(tv_sec: time_t(truncatingIfNeeded: seconds), tv_nsec: Int(truncatingIfNeeded: rest))
    }

    /// The instant or span in nanoseconds.
    var nanoseconds: UInt64 { UInt64(tv_sec) &* Nanoseconds.perSecond &+ UInt64(tv_nsec) }
}
