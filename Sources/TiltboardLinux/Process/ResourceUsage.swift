#if canImport(Glibc)
import Glibc
#endif

/// What the kernel accounts to this process.
package enum ResourceUsage {
    /// The largest resident set this process has had, in bytes (getrusage's ru_maxrss, which
    /// Linux gives in KiB); nil if the call fails.
    package static func peakResidentBytes() -> UInt64? {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return UInt64(max(0, usage.ru_maxrss)) * 1024
    }

    /// The resident set now, in bytes (the second field of /proc/self/statm, in pages); nil if unreadable.
    package static func currentResidentBytes() -> UInt64? {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let fields = buffer[..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = UInt64(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// CPU time the calling thread has used, in nanoseconds (CLOCK_THREAD_CPUTIME_ID): throughput
    /// per CPU second stays meaningful when other processes share the cores.
    package static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return ts.nanoseconds
    }
}
