#include "linux_support.h"
#include <errno.h>
#include <sys/prctl.h>

int tiltboard_set_timer_slack(unsigned long nanoseconds) {
    return prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0) == 0 ? 0 : -errno;
}
