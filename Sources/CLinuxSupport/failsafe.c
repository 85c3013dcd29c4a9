#include "failsafe.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16

struct slot {
    _Atomic(tb_failsafe_action) action;  // NULL: free
    void *_Atomic context;
};

static struct slot slots[SLOTS];
static atomic_int tripped;
static struct sigaction previous[65];
static atomic_int installed[65];

int tb_failsafe_add(tb_failsafe_action action, void *context) {
    if (!action || !context) return -EINVAL;
    for (int i = 0; i < SLOTS; i++) {
        void *empty = NULL;
        // The context claims the slot; the handler runs a slot only once its action is set too.
        if (atomic_compare_exchange_strong(&slots[i].context, &empty, context)) {
            atomic_store(&slots[i].action, action);
            return i;
        }
    }
    return -ENOSPC;
}

void tb_failsafe_remove(int slot) {
    if (slot < 0 || slot >= SLOTS) return;
    atomic_store(&slots[slot].action, NULL);
    atomic_store(&slots[slot].context, NULL);
}

int tb_failsafe_tripped(void) { return atomic_load(&tripped); }

void tb_failsafe_trip(void) {
    atomic_store(&tripped, 1);
    for (int i = 0; i < SLOTS; i++) {
        tb_failsafe_action action = atomic_load(&slots[i].action);
        void *context = atomic_load(&slots[i].context);
        if (action && context) action(context);
    }
}

// Signals that a faulting instruction raises: returning from the handler with the default action
// back in place runs the instruction again, and the kernel then ends the process with the
// original fault (and its address in the core dump).
static int is_fault(int sig, const siginfo_t *info) {
    if (!info || info->si_code <= 0 || info->si_code == SI_KERNEL) return 0;
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP || sig == SIGSYS;
}

static void crash_handler(int sig, siginfo_t *info, void *ucontext) {
    int saved = errno;
    // Motor off before anything else, the backtracer included: it may take seconds, or hang.
    tb_failsafe_trip();
    if (sig > 0 && sig < 65) {
        struct sigaction *old = &previous[sig];
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction) old->sa_sigaction(sig, info, ucontext);
        } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN && old->sa_handler) {
            old->sa_handler(sig);
        }
    }
    // Whatever the chained handler did meanwhile, the motor stays off.
    tb_failsafe_trip();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    if (is_fault(sig, info)) return;
    // Sent by a process (kill, abort, raise) or the terminal (Ctrl-\): end with it now.
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, sig);
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
    raise(sig);
}

int tb_failsafe_install(const int *signals, int count) {
    for (int i = 0; i < count; i++) {
        int sig = signals[i];
        if (sig <= 0 || sig >= 65) return -EINVAL;
        if (atomic_load(&installed[sig])) continue;
        struct sigaction old;
        if (sigaction(sig, NULL, &old) != 0) return -errno;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;
        previous[sig] = old;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = crash_handler;
        // SA_ONSTACK: a stack overflow's SIGSEGV still finds a stack where one was set up.
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(sig, &action, NULL) != 0) return -errno;
        atomic_store(&installed[sig], 1);
    }
    return 0;
}

struct tb_failsafe_log {
    int fd;
    int monotonic;
    int slot;
    atomic_int active;
    _Atomic int64_t micros;
};

// `<seconds>.<6 digits> 0\n` as the log's writer formats it, without stdio.
static void log_off(void *context) {
    struct tb_failsafe_log *log = context;
    if (!atomic_load(&log->active)) return;
    int64_t micros = atomic_load(&log->micros);
    if (log->monotonic) {
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) {
            micros = (int64_t)ts.tv_sec * 1000000 + (ts.tv_nsec + 500) / 1000;
        }
    }
    char text[48];
    int n = 0;
    if (micros < 0) { text[n++] = '-'; micros = -micros; }
    char digits[24];
    int d = 0;
    int64_t whole = micros / 1000000, frac = micros % 1000000;
    do { digits[d++] = (char)('0' + whole % 10); whole /= 10; } while (whole > 0);
    while (d > 0) text[n++] = digits[--d];
    text[n++] = '.';
    for (int64_t div = 100000; div > 0; div /= 10) text[n++] = (char)('0' + (frac / div) % 10);
    text[n++] = ' '; text[n++] = '0'; text[n++] = '\n';
    if (write(log->fd, text, (size_t)n) == n) atomic_store(&log->active, 0);
}

tb_failsafe_log *tb_failsafe_log_new(int fd, int monotonic) {
    struct tb_failsafe_log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->fd = fd;
    log->monotonic = monotonic;
    log->slot = tb_failsafe_add(log_off, log);
    if (log->slot < 0) { free(log); return NULL; }
    return log;
}

void tb_failsafe_log_state(tb_failsafe_log *log, int active, int64_t t_micros) {
    if (!log) return;
    atomic_store(&log->micros, t_micros);
    atomic_store(&log->active, active ? 1 : 0);
}

void tb_failsafe_log_free(tb_failsafe_log *log) {
    if (!log) return;
    tb_failsafe_remove(log->slot);
    free(log);
}

int tb_sigrtmin(void) { return SIGRTMIN; }
int tb_sigrtmax(void) { return SIGRTMAX; }

// The signals Swift's crash handler sends other threads to suspend them while it takes a
// backtrace (SIGUSR1, SIGUSR2, SIGPROF, whichever is free): they must not be blocked in any
// thread, so they reach the watching thread through a handler instead of sigwait.
static atomic_int forward_target;

static void forward_handler(int sig) {
    int saved = errno;
    union sigval value;
    value.sival_int = sig;
    (void)sigqueue(getpid(), atomic_load(&forward_target), value);
    errno = saved;
}

int tb_forward_install(const int *signals, int count, int target) {
    atomic_store(&forward_target, target);
    for (int i = 0; i < count; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = forward_handler;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(signals[i], &action, NULL) != 0) return -errno;
    }
    return 0;
}

int tb_sigwait_forwarded(const sigset_t *set) {
    siginfo_t info;
    int sig = sigwaitinfo(set, &info);
    if (sig < 0) return -errno;
    if (sig == atomic_load(&forward_target) && info.si_code == SI_QUEUE && info.si_pid == getpid() &&
        info.si_value.sival_int > 0 && info.si_value.sival_int < 65) {
        return info.si_value.sival_int;
    }
    return sig;
}

// glibc keeps signals 32 and 33 (SIGCANCEL, SIGSETXID) for its threads and refuses sigaction on
// them; since glibc 2.34 it installs its own handlers only when first needed, so until then one
// of them sent by another process takes its default action and ends the process (motor on). The
// kernel's rt_sigaction is asked directly for those still at SIG_DFL; the handler forwards them
// as the others are. The structure is the kernel's (include/uapi/asm-generic/signal.h), and x86-64
// wants its own sigreturn trampoline (arch/x86/kernel/signal_64.c refuses a frame without
// SA_RESTORER); aarch64 uses the vDSO's.
struct tb_kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    unsigned long mask;
};
#define TB_SA_RESTORER 0x04000000UL
#define TB_SA_RESTART 0x10000000UL
#if defined(__x86_64__)
extern void tb_restore_rt(void) __asm__("tb_restore_rt");
__asm__(".text\n.align 16\ntb_restore_rt:\n\tmovq $15, %rax\n\tsyscall\n");  // __NR_rt_sigreturn
#endif

int tb_forward_install_reserved(const int *signals, int count, int target) {
    atomic_store(&forward_target, target);
    for (int i = 0; i < count; i++) {
        struct tb_kernel_sigaction old;
        memset(&old, 0, sizeof old);
        if (syscall(SYS_rt_sigaction, signals[i], NULL, &old, sizeof(unsigned long)) != 0) return -errno;
        if (old.handler != SIG_DFL) continue;  // glibc's own is in place: it ignores strangers
        struct tb_kernel_sigaction action;
        memset(&action, 0, sizeof action);
        action.handler = forward_handler;
        action.flags = TB_SA_RESTART;
#if defined(__x86_64__)
        action.flags |= TB_SA_RESTORER;
        action.restorer = tb_restore_rt;
#endif
        if (syscall(SYS_rt_sigaction, signals[i], &action, NULL, sizeof(unsigned long)) != 0) return -errno;
    }
    return 0;
}
