#ifndef TILTBOARD_LINUX_SUPPORT_H
#define TILTBOARD_LINUX_SUPPORT_H
/// Sets the calling thread's timer slack (how late the kernel may wake a sleeper to batch wakeups;
/// 50 µs by default). prctl is variadic, so Swift cannot call it directly. Returns 0 or -errno.
int tiltboard_set_timer_slack(unsigned long nanoseconds);

/// Sets the calling thread's nice value (not the whole process's: Linux applies setpriority with a
/// thread id to that thread). Raising it needs no privilege. Returns 0 or -errno.
int tiltboard_set_thread_nice(int nice);

/// Names the calling thread (the first 15 bytes). Returns 0 or -errno.
int tiltboard_set_thread_name(const char *name);

/// A non-blocking, close-on-exec eventfd(2) with its counter at 0 (<sys/eventfd.h> is not in
/// Swift's Glibc module). Returns the descriptor or -errno.
int tiltboard_eventfd(void);

#include <stdint.h>
#include "failsafe.h"

/// Creates a uinput gamepad on `fd` (an open /dev/uinput): BUS_VIRTUAL with no USB vendor or
/// product (it has none; SDL then identifies it by name), ABS_X/ABS_Y in -32767…32767, the face,
/// shoulder, select and start buttons, FF_RUMBLE/FF_CONSTANT/FF_PERIODIC with gain and
/// `ff_effects_max` slots (0: no force feedback, no EV_FF). Returns 0 or -errno.
int tiltboard_uinput_create_gamepad(int fd, const char *name, uint32_t ff_effects_max);

/// Reports ABS_X, ABS_Y and BTN_SOUTH, then SYN_REPORT, in one write. Returns 0 or -errno.
int tiltboard_uinput_report(int fd, int32_t x, int32_t y, int button);

/// One force-feedback request read from the device.
enum tiltboard_ff_kind { TILTBOARD_FF_NONE, TILTBOARD_FF_UPLOAD, TILTBOARD_FF_ERASE, TILTBOARD_FF_PLAY, TILTBOARD_FF_GAIN };
struct tiltboard_ff_request {
    enum tiltboard_ff_kind kind;
    int32_t id;            /* effect id (upload, erase, play) */
    int32_t value;         /* play count, or gain 0…0xFFFF */
    int rumble;            /* upload: 1 for FF_RUMBLE, 0 for FF_CONSTANT or FF_PERIODIC */
    uint16_t strong, weak; /* FF_RUMBLE magnitudes */
    int16_t level;         /* FF_CONSTANT level or FF_PERIODIC magnitude */
    uint16_t length_ms, delay_ms;
};

/// Reads one event without blocking and, for an upload or erase, completes the kernel's
/// handshake (an unsupported effect type is refused with -EINVAL). Returns 1 with `out` filled
/// (kind NONE for events of no interest), 0 when nothing is waiting, or -errno.
int tiltboard_uinput_next(int fd, struct tiltboard_ff_request *out);

/// UI_DEV_DESTROY. Returns 0 or -errno.
int tiltboard_uinput_destroy(int fd);
#endif
