#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TiltboardCore

/// `CLOCK_MONOTONIC`: never jumps with wall-clock changes; sleeps to absolute deadlines with
/// `clock_nanosleep(TIMER_ABSTIME)`, so a late wake-up does not push later deadlines back.
public final class LinuxMonotonicClock: MonotonicClock {
    public init() {}

    /// Nanoseconds since boot (CLOCK_MONOTONIC).
    public func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        // Cannot fail for CLOCK_MONOTONIC with a valid pointer.
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Sleeps until `deadline` on CLOCK_MONOTONIC, resuming after signals.
    public func sleep(untilNanoseconds deadline: UInt64) {
        var ts = timespec()
        // time_t and long are 32-bit on 32-bit Pi OS; seconds since boot fit either way.
        ts.tv_sec = time_t(truncatingIfNeeded: deadline / 1_000_000_000)
        ts.tv_nsec = Int(truncatingIfNeeded: deadline % 1_000_000_000)
        // A signal (e.g. the one asking us to stop) interrupts the sleep: resume to the same deadline.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
