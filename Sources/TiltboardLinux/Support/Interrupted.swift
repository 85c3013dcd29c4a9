#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A system call interrupted by a signal handler fails with EINTR (signal(7), "Interruption of
// system calls and library functions by signal handlers") and is simply made again. Two
// conventions of failure exist among the calls this target makes; one helper each.

/// `call` again while it fails with EINTR: for calls that return -1 (or any negative value)
/// and set `errno` (read, write, open, poll, waitpid, …).
func retryingEINTR<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let r = call()
        if r < 0 && errno == EINTR { continue }
        return r
    }
}

/// `call` again while it returns -EINTR: for calls that return the negated errno (libi2c's
/// and libgpiod's wrappers here, kernel-style).
@inline(__always)
func retryingNegatedEINTR(_ call: () -> Int32) -> Int32 {
    var result: Int32
    repeat { result = call() } while result == -EINTR
    return result
}
