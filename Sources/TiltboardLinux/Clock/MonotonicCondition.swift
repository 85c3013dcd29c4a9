#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import TiltboardCore

/// A mutex and a condition variable whose timed waits run to absolute `CLOCK_MONOTONIC` deadlines
/// (`pthread_condattr_setclock`), so a wall-clock step — NTP setting a Pi's clock at boot, which
/// has no RTC — neither shortens nor stretches a motor pulse waiting on it.
final class MonotonicCondition: ClockCondition, @unchecked Sendable {
    // @unchecked: the pthread objects are used only through their own locking rules.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let cond: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        cond = .allocate(capacity: 1)
        // With valid pointers and attributes these calls cannot fail.
        _ = pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        _ = pthread_condattr_init(&attr)
        _ = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        _ = pthread_cond_init(cond, &attr)
        _ = pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { _ = pthread_mutex_lock(mutex) }
    func unlock() { _ = pthread_mutex_unlock(mutex) }
    func signal() { _ = pthread_cond_signal(cond) }
    func broadcast() { _ = pthread_cond_broadcast(cond) }

    func wait(untilNanoseconds deadline: UInt64?) {
        guard let deadline else {
            _ = pthread_cond_wait(cond, mutex)
            return
        }
        // The same origin as LinuxMonotonicClock.nowNanoseconds(): CLOCK_MONOTONIC.
        var ts = timespec(nanoseconds: deadline)
        _ = pthread_cond_timedwait(cond, mutex, &ts)
    }
}

extension LinuxMonotonicClock {
    /// Timed waits on CLOCK_MONOTONIC itself, not on the wall clock.
    public func makeCondition() -> ClockCondition { MonotonicCondition() }
}
