#if canImport(Glibc)
import Glibc
#endif

/// What the kernel accounts to this process.
public enum ResourceUsage {
    /// The largest resident set this process has had, in bytes (getrusage's ru_maxrss, which
    /// Linux gives in KiB); nil if the call fails.
    public static func peakResidentBytes() -> UInt64? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return UInt64(max(0, usage.ru_maxrss)) * 1024
    }

    /// CPU time the calling thread has used, in nanoseconds (CLOCK_THREAD_CPUTIME_ID): throughput
    /// per CPU second stays meaningful when other processes share the cores.
    public static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
