#if canImport(Glibc)
import Glibc
#endif

/// Looks at `condition` until it holds or `timeout` seconds of real time have passed, pausing
/// `interval` seconds between looks (0: only yields the processor); true when it held.
///
/// For what runs in real time beside the test: a child process, a thread of its own, a server.
/// The time is the monotonic clock's, so a change of the wall clock neither ends the wait early
/// nor makes it endless. The caller asserts on the result or on what it waited for.
@discardableResult
public func pollUntil(timeout: Double = 60, every interval: Double = 0.005,
                      _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .seconds(timeout))
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        if interval > 0 { usleep(useconds_t(interval * 1_000_000)) } else { sched_yield() }
    }
}
