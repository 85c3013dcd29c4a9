#ifndef TILTBOARD_FAILSAFE_H
#define TILTBOARD_FAILSAFE_H
// The motor's last line of defence: actions prepared while the program runs normally and run
// from a signal handler when the process crashes (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE,
// SIGABRT, SIGSYS, SIGQUIT). Everything here that the handler touches is async-signal-safe
// (POSIX.1-2017 XSH 2.4.3): no allocation, no lock, only atomics and system calls.

#include <stdint.h>

/// An action run by the crash handler: one system call on prepared data, nothing else.
typedef void (*tb_failsafe_action)(void *context);

/// Registers `action(context)` (`context` not NULL), run on a crash until removed. Returns the
/// slot (>= 0), or -ENOSPC when all 16 slots are taken.
int tb_failsafe_add(tb_failsafe_action action, void *context);

/// Removes a slot; the action no longer runs. Call before freeing what `context` points to.
void tb_failsafe_remove(int slot);

/// 1 once a crash handler started (the motor lines must no longer be driven active), else 0.
int tb_failsafe_tripped(void);

/// Sets the tripped flag and runs every registered action (what the crash handler does first).
/// Async-signal-safe.
void tb_failsafe_trip(void);

/// Installs the crash handler for each of `signals`, chaining to the handler that was there
/// (Swift's runtime backtracer installs one before `main`). A signal found ignored (SIG_IGN) is
/// left ignored. Returns 0 or -errno.
int tb_failsafe_install(const int *signals, int count);

/// A simulated motor's log file: on a crash while the motor is on, the handler appends
/// `<seconds> 0\n` to `fd`, as the log's normal writer would for a switch-off.
typedef struct tb_failsafe_log tb_failsafe_log;

/// A log slot for `fd`; the crash time is CLOCK_MONOTONIC when `monotonic` is 1, else the time
/// of the last recorded change (a virtual clock). NULL when out of memory or out of slots.
tb_failsafe_log *tb_failsafe_log_new(int fd, int monotonic);

/// Records the motor's level and the time of the change, in microseconds.
void tb_failsafe_log_state(tb_failsafe_log *log, int active, int64_t t_micros);

/// Removes the slot and frees the log record (the descriptor stays open).
void tb_failsafe_log_free(tb_failsafe_log *log);

#include <signal.h>

/// Installs a handler on each of `signals` that queues `target` to the process (sigqueue) with
/// the signal's number as its value, for a thread that takes `target` with tb_sigwait_forwarded.
/// For signals that must stay unblocked in every thread. Returns 0 or -errno.
int tb_forward_install(const int *signals, int count, int target);

/// sigwaitinfo on `set`: the signal taken, or the forwarded one when it came from
/// tb_forward_install's handler; -errno on failure.
int tb_sigwait_forwarded(const sigset_t *set);

/// `tb_forward_install` for glibc's reserved signals (32, 33), through the kernel's rt_sigaction,
/// for those still at their default action. 0, or -errno.
int tb_forward_install_reserved(const int *signals, int count, int target);

/// glibc's first and last real-time signal numbers (SIGRTMIN, SIGRTMAX are function calls there).
int tb_sigrtmin(void);
int tb_sigrtmax(void);

#endif
