import CLinuxSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The motor's fail-safe for a crash: actions prepared while the program runs (the GPIO line's
/// ioctl, a simulated motor's log line) and run from a signal handler on SIGSEGV, SIGBUS, SIGILL,
/// SIGTRAP, SIGFPE, SIGABRT, SIGSYS and SIGQUIT — Swift's traps (fatalError, a failed
/// precondition, an index out of range) end in SIGILL on x86-64 and SIGTRAP on arm64.
///
/// The handler is C (Sources/CLinuxSupport/failsafe.c) and async-signal-safe: it drives every
/// registered motor line inactive, then chains to the handler installed before it (Swift's
/// runtime backtracer, which prints the crash report), and then lets the signal take its default
/// action: a fault runs again and ends the process, a signal sent by a process or the terminal
/// (kill, abort, Ctrl-\) is raised again. Either way the process dies by that signal, with a core
/// dump where the system keeps them. Once tripped, the lines refuse to be driven active again.
package enum CrashFailSafe {
    /// The crash signals: their default action dumps core, and no clean stop can follow them.
    package static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS, SIGQUIT]

    /// Installs the crash handler (after the Swift runtime's own, which it chains to). Idempotent.
    package static func install() throws {
        let rc = crashSignals.withUnsafeBufferPointer { tb_failsafe_install($0.baseAddress, Int32($0.count)) }
        if rc != 0 { throw SignalWatcherError(.installCrashHandler, errno: -rc) }
    }

    /// What the crash handler does first, for a process that must end at once without a crash
    /// (a stop whose deadline passed): every registered motor line driven inactive, and the lines
    /// refuse to be driven active again.
    package static func trip() { tb_failsafe_trip() }

    /// True once a crash handler started: motor lines must stay inactive from then on.
    package static var tripped: Bool { tb_failsafe_tripped() != 0 }

    /// Registers `action(context)` for the crash handler; nil when all slots are taken.
    static func add(_ action: tb_failsafe_action, context: UnsafeMutableRawPointer) -> Int32? {
        let slot = tb_failsafe_add(action, context)
        return slot >= 0 ? slot : nil
    }

    /// Unregisters a slot from `add`.
    static func remove(_ slot: Int32) { tb_failsafe_remove(slot) }
}

/// What a crash appends to a simulated motor's log file while the motor is on: `<seconds> 0`,
/// the seconds read from CLOCK_MONOTONIC (`monotonic`, the real-time clock of
/// `LinuxMonotonicClock`) or else the time of the last recorded change (a virtual clock).
package final class CrashLogRecord: @unchecked Sendable {
    private let raw: OpaquePointer
    /// Holds `fd` open for as long as the handler may write to it.
    private let file: AppendOnlyFile

    /// Nil when no slot is free.
    init?(file: AppendOnlyFile, fd: Int32, monotonic: Bool) {
        guard let raw = tb_failsafe_log_new(fd, monotonic ? 1 : 0) else { return nil }
        self.raw = raw
        self.file = file
    }

    /// The motor's level from the change at `t` seconds on.
    package func record(active: Bool, t: Double) {
        tb_failsafe_log_state(raw, active ? 1 : 0, Int64((t * 1e6).rounded()))
    }

    deinit { tb_failsafe_log_free(raw) }
}
