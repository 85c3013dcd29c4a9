#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CLinuxSupport

/// Real-time scheduling for the control loop, when the system allows it.
package enum Realtime {
    /// sched(7), `SCHED_RESET_ON_FORK` (<linux/sched.h>): a thread (or process) created by a
    /// thread with this flag starts under `SCHED_OTHER`, whatever its creator's policy.
    static let resetOnFork: Int32 = 0x4000_0000

    /// Puts the calling thread, and only it, under `SCHED_FIFO` at `priority` (1–99) and locks the
    /// process's memory so page faults cannot stall the loop. Threads it starts later (the profile
    /// watcher, a libdispatch worker woken from it) run under normal scheduling
    /// (`SCHED_RESET_ON_FORK`), so nothing but the loop competes in real time. Call it on the loop
    /// thread before it starts.
    /// Returns nil on success, or what could not be done and the kernel's errno; the program
    /// keeps running with normal scheduling either way.
    package static func enable(priority: Int32 = 50) -> RealtimeShortfall? {
        var shortfall = RealtimeShortfall()
        let low = sched_get_priority_min(SCHED_FIFO), high = sched_get_priority_max(SCHED_FIFO)
        var param = sched_param()
        param.sched_priority = Swift.min(Swift.max(priority, low), high)
        // On Linux, pid 0 is the calling thread alone (sched_setscheduler(2)).
        let rc = sched_setscheduler(0, SCHED_FIFO | resetOnFork, &param) == 0 ? 0 : errno
        if rc != 0 { shortfall.schedulingErrno = rc }
        // mlockall(2), MCL_ONFAULT (Linux 4.4): each page is locked when first touched rather than
        // all at once, so the locked set is what the process uses (about its resident size), not
        // every thread's whole stack. A kernel without it refuses the flag (EINVAL): lock it all.
        let onFault: Int32 = 4
        var locked = mlockall(MCL_CURRENT | MCL_FUTURE | onFault) == 0
        if !locked && errno == EINVAL { locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0 }
        if !locked { shortfall.memoryLockErrno = errno }
        return shortfall.schedulingErrno == nil && shortfall.memoryLockErrno == nil ? nil : shortfall
    }

    /// Lets the kernel wake the calling thread at its deadline instead of up to 50 µs later (the
    /// default timer slack, which it uses to batch wakeups). Needs no privilege; halves the
    /// loop's median lateness where measured. Returns false if the kernel refused.
    @discardableResult
    package static func tightenTimerSlack() -> Bool {
        tiltboard_set_timer_slack(1) == 0
    }

    /// Gives the calling thread a lower priority than the loop's: nice `value` (1–19; the loop runs
    /// at 0), so the kernel lets the loop run first whenever both are ready. Needs no privilege.
    /// Returns false if the kernel refused.
    @discardableResult
    package static func lowerCallingThread(nice value: Int32) -> Bool {
        tiltboard_set_thread_nice(value) == 0
    }

    /// Names the calling thread for `top -H`, `ps -L` and debuggers (15 bytes at most are kept).
    package static func nameCallingThread(_ name: String) {
        _ = tiltboard_set_thread_name(name)
    }

    /// Returns the calling thread to normal scheduling and unlocks memory.
    package static func disable() {
        var param = sched_param()
        param.sched_priority = 0
        _ = sched_setscheduler(0, SCHED_OTHER, &param)
        _ = munlockall()
    }

    /// The calling thread's scheduling policy (without `SCHED_RESET_ON_FORK`) and priority.
    package static func currentPolicy() -> (policy: Int32, priority: Int32) {
        var param = sched_param()
        _ = sched_getparam(0, &param)
        return (sched_getscheduler(0) & ~resetOnFork, param.sched_priority)
    }
}

/// What `Realtime.enable` could not have: SCHED_FIFO (the errno of `sched_setscheduler`) or
/// locked memory (the errno of `mlockall`). The program runs on with normal scheduling; the one
/// that shows it words it.
public struct RealtimeShortfall: Sendable, Equatable {
    /// Why SCHED_FIFO was refused (EPERM: not permitted), nil when it was granted.
    public var schedulingErrno: Int32?
    /// Why memory locking was refused (EPERM, ENOMEM: not permitted), nil when it worked.
    public var memoryLockErrno: Int32?

    /// A shortfall of the two errnos.
    public init(schedulingErrno: Int32? = nil, memoryLockErrno: Int32? = nil) {
        self.schedulingErrno = schedulingErrno; self.memoryLockErrno = memoryLockErrno
    }
}
