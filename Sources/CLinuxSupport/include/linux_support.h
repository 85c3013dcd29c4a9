#ifndef TILTBOARD_LINUX_SUPPORT_H
#define TILTBOARD_LINUX_SUPPORT_H
/// Sets the calling thread's timer slack (how late the kernel may wake a sleeper to batch wakeups;
/// 50 µs by default). prctl is variadic, so Swift cannot call it directly. Returns 0 or -errno.
int tiltboard_set_timer_slack(unsigned long nanoseconds);
#endif
