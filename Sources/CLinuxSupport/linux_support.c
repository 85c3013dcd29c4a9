#include "linux_support.h"
#include <errno.h>
#include <sys/prctl.h>

int tiltboard_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) == 0 ? 0 : -errno;
}

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int tiltboard_set_thread_nice(int nice) {
    /* On Linux, PRIO_PROCESS with a thread id sets that one thread's nice value; raising it needs
       no privilege. */
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice) == 0 ? 0 : -errno;
}

int tiltboard_set_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0) == 0 ? 0 : -errno;
}

#include <sys/eventfd.h>

int tiltboard_eventfd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd >= 0 ? fd : -errno;
}
