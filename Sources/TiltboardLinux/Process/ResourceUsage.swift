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
}
