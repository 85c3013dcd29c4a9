#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TiltboardCore

/// `CLOCK_MONOTONIC`: never jumps with wall-clock changes; sleeps to absolute deadlines with
/// `clock_nanosleep(TIMER_ABSTIME)`, so a late wake-up does not push later deadlines back.
public final class LinuxMonotonicClock: MonotonicClock {
    /// The system's monotonic clock (`CLOCK_MONOTONIC`).
    public init() {}

    /// Nanoseconds since boot (CLOCK_MONOTONIC).
    public func nowNanoseconds() -> UInt64 {
        var ts = timespec()
        // Cannot fail for CLOCK_MONOTONIC with a valid pointer.
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts.nanoseconds
    }

    /// Sleeps until `deadline` on CLOCK_MONOTONIC, resuming after signals.
    public func sleep(untilNanoseconds deadline: UInt64) {
        var ts = timespec(nanoseconds: deadline)
        // A signal (e.g. the one asking us to stop) interrupts the sleep: resume to the same deadline.
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }
}
