#include "linux_support.h"
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/uinput.h>

/* What SDL's automatic gamepad mapping for Linux evdev devices looks for: the four face
   buttons, select and start (shoulders for good measure) next to at least two axes. */
static const int buttons[] = { BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_TL, BTN_TR, BTN_SELECT, BTN_START };
static const int effects[] = { FF_RUMBLE, FF_CONSTANT, FF_PERIODIC, FF_SQUARE, FF_TRIANGLE, FF_SINE,
                               FF_SAW_UP, FF_SAW_DOWN, FF_GAIN };

#define TRY(call) do { if ((call) < 0) return -errno; } while (0)

int tiltboard_uinput_create_gamepad(int fd, const char *name, uint32_t ff_effects_max) {
    TRY(ioctl(fd, UI_SET_EVBIT, EV_SYN));
    TRY(ioctl(fd, UI_SET_EVBIT, EV_KEY));
    TRY(ioctl(fd, UI_SET_EVBIT, EV_ABS));
    for (size_t i = 0; i < sizeof buttons / sizeof buttons[0]; i++) TRY(ioctl(fd, UI_SET_KEYBIT, buttons[i]));
    /* No slots, no force feedback at all: the device then has no EV_FF bit, so a game sees a pad
       without rumble (SDL, for one, offers rumble only where FF_RUMBLE is set) rather than one
       that rumbles silently. The kernel refuses EV_FF with ff_effects_max 0
       (drivers/input/misc/uinput.c, uinput_create_device). */
    if (ff_effects_max > 0) {
        TRY(ioctl(fd, UI_SET_EVBIT, EV_FF));
        for (size_t i = 0; i < sizeof effects / sizeof effects[0]; i++) TRY(ioctl(fd, UI_SET_FFBIT, effects[i]));
    }

    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.version = 1;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    setup.ff_effects_max = ff_effects_max;
    TRY(ioctl(fd, UI_DEV_SETUP, &setup));

    const int axes[] = { ABS_X, ABS_Y };
    for (size_t i = 0; i < 2; i++) {
        struct uinput_abs_setup abs;
        memset(&abs, 0, sizeof abs);
        abs.code = axes[i];
        abs.absinfo.minimum = -32767;
        abs.absinfo.maximum = 32767;
        TRY(ioctl(fd, UI_SET_ABSBIT, axes[i]));
        TRY(ioctl(fd, UI_ABS_SETUP, &abs));
    }
    TRY(ioctl(fd, UI_DEV_CREATE));
    return 0;
}

int tiltboard_uinput_report(int fd, int32_t x, int32_t y, int button) {
    struct input_event ev[4];
    memset(ev, 0, sizeof ev);
    ev[0].type = EV_ABS; ev[0].code = ABS_X; ev[0].value = x;
    ev[1].type = EV_ABS; ev[1].code = ABS_Y; ev[1].value = y;
    ev[2].type = EV_KEY; ev[2].code = BTN_SOUTH; ev[2].value = button ? 1 : 0;
    ev[3].type = EV_SYN; ev[3].code = SYN_REPORT;
    ssize_t n = write(fd, ev, sizeof ev);
    if (n < 0) return -errno;
    return n == sizeof ev ? 0 : -EIO;
}

static void describe(const struct ff_effect *e, struct tiltboard_ff_request *out) {
    out->rumble = e->type == FF_RUMBLE;
    out->length_ms = e->replay.length;
    out->delay_ms = e->replay.delay;
    switch (e->type) {
    case FF_RUMBLE: out->strong = e->u.rumble.strong_magnitude; out->weak = e->u.rumble.weak_magnitude; break;
    case FF_CONSTANT: out->level = e->u.constant.level; break;
    case FF_PERIODIC: out->level = e->u.periodic.magnitude; break;
    }
}

int tiltboard_uinput_next(int fd, struct tiltboard_ff_request *out) {
    struct input_event ev;
    memset(out, 0, sizeof *out);
    ssize_t n = read(fd, &ev, sizeof ev);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    if (n != sizeof ev) return -EIO;
    if (ev.type == EV_UINPUT && ev.code == UI_FF_UPLOAD) {
        struct uinput_ff_upload up;
        memset(&up, 0, sizeof up);
        up.request_id = ev.value;
        TRY(ioctl(fd, UI_BEGIN_FF_UPLOAD, &up));
        int supported = up.effect.type == FF_RUMBLE || up.effect.type == FF_CONSTANT || up.effect.type == FF_PERIODIC;
        up.retval = supported ? 0 : -EINVAL;
        TRY(ioctl(fd, UI_END_FF_UPLOAD, &up));
        if (supported) {
            out->kind = TILTBOARD_FF_UPLOAD;
            out->id = up.effect.id;
            describe(&up.effect, out);
        }
    } else if (ev.type == EV_UINPUT && ev.code == UI_FF_ERASE) {
        struct uinput_ff_erase er;
        memset(&er, 0, sizeof er);
        er.request_id = ev.value;
        TRY(ioctl(fd, UI_BEGIN_FF_ERASE, &er));
        er.retval = 0;
        TRY(ioctl(fd, UI_END_FF_ERASE, &er));
        out->kind = TILTBOARD_FF_ERASE;
        out->id = er.effect_id;
    } else if (ev.type == EV_FF && ev.code == FF_GAIN) {
        out->kind = TILTBOARD_FF_GAIN;
        out->value = ev.value;
    } else if (ev.type == EV_FF) {
        out->kind = TILTBOARD_FF_PLAY;
        out->id = ev.code;
        out->value = ev.value;
    }
    return 1;
}

int tiltboard_uinput_destroy(int fd) {
    return ioctl(fd, UI_DEV_DESTROY) < 0 ? -errno : 0;
}
