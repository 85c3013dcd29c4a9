/* A game's view of `tiltboard gamepad`, written against the kernel's evdev interface only
 * (Documentation/input/input.rst, ff.rst): finds the event device called NAME, checks the stick's
 * range with EVIOCGABS, reads events until the device goes away or SECONDS pass, and meanwhile
 * uploads and plays FF_RUMBLE effects (EVIOCSFF, then an EV_FF write), as SDL_JoystickRumble
 * does: 300 ms a second in, 2 s (longer than the board's motor cap) at 3 s, then 20 plays of
 * 50 ms, 200 ms apart, from 5.5 s (one effect, uploaded again before each play). Prints what it saw, one fact per line; the guest script judges it.
 *
 * Usage: gamepad-client NAME SECONDS
 * Lines: "range X_MIN X_MAX Y_MIN Y_MAX", "ff HAS_EV_FF SLOTS" (EVIOCGBIT's EV_FF bit and
 * EVIOCGEFFECTS: 0 0 for a pad without rumble), "rumble MS AT" (CLOCK_MONOTONIC seconds of the play
 * write), "order ..." (left/right/forward/back in the order the stick first passed half deflection
 * that way), "button N" (BTN_SOUTH presses), "gone" (the device was removed while open). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_named(const char *name) {
    DIR *dir = opendir("/dev/input");
    if (!dir) return -1;
    struct dirent *e;
    int found = -1;
    while (found < 0 && (e = readdir(dir))) {
        if (strncmp(e->d_name, "event", 5) != 0) continue;
        char path[300], have[256] = "";
        snprintf(path, sizeof path, "/dev/input/%s", e->d_name);
        int fd = open(path, O_RDWR | O_NONBLOCK);
        if (fd < 0) continue;
        if (ioctl(fd, EVIOCGNAME(sizeof have), have) >= 0 && strcmp(have, name) == 0) found = fd;
        else close(fd);
    }
    closedir(dir);
    return found;
}

/* Uploads (or, with *id >= 0, replaces) a full-strength rumble of MS and plays it once. */
static void rumble(int fd, int ms, int *id) {
    struct ff_effect effect;
    memset(&effect, 0, sizeof effect);
    effect.type = FF_RUMBLE;
    effect.id = *id;
    effect.u.rumble.strong_magnitude = 0xFFFF;
    effect.replay.length = ms;
    if (ioctl(fd, EVIOCSFF, &effect) < 0) { printf("upload failed: %s\n", strerror(errno)); return; }
    *id = effect.id;
    struct input_event play;
    memset(&play, 0, sizeof play);
    play.type = EV_FF;
    play.code = effect.id;
    play.value = 1;
    double at = now();
    if (write(fd, &play, sizeof play) != sizeof play) { printf("play failed: %s\n", strerror(errno)); return; }
    printf("rumble %d %.6f\n", ms, at);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: gamepad-client NAME SECONDS\n"); return 2; }
    double start = now(), limit = atof(argv[2]);
    int fd;
    while ((fd = open_named(argv[1])) < 0) {
        if (now() - start > limit) { printf("no device named %s\n", argv[1]); return 1; }
        usleep(20000);
    }
    struct input_absinfo ax, ay;
    if (ioctl(fd, EVIOCGABS(ABS_X), &ax) < 0 || ioctl(fd, EVIOCGABS(ABS_Y), &ay) < 0) { printf("EVIOCGABS failed\n"); return 1; }
    printf("range %d %d %d %d\n", ax.minimum, ax.maximum, ay.minimum, ay.maximum);
    unsigned long types[EV_MAX / (8 * sizeof(unsigned long)) + 1] = { 0 };
    int slots = 0;
    if (ioctl(fd, EVIOCGBIT(0, sizeof types), types) < 0) { printf("EVIOCGBIT failed\n"); return 1; }
    int has_ff = (types[EV_FF / (8 * sizeof(unsigned long))] >> (EV_FF % (8 * sizeof(unsigned long)))) & 1;
    if (has_ff && ioctl(fd, EVIOCGEFFECTS, &slots) < 0) { printf("EVIOCGEFFECTS failed\n"); return 1; }
    printf("ff %d %d\n", has_ff, slots);
    fflush(stdout);

    const char *names[4] = { "left", "right", "forward", "back" };
    int seen[4] = { 0 }, order[4], count = 0, presses = 0, sent = 0, ids[3] = { -1, -1, -1 };
    double opened = now();
    while (now() - start < limit) {
        /* A short rumble a second in, then one longer than the board's motor cap. */
        double t = now() - opened;
        if (sent == 0 && t > 1) { rumble(fd, 300, &ids[0]); sent++; }
        if (sent == 1 && t > 3) { rumble(fd, 2000, &ids[1]); sent++; }
        if (sent >= 2 && sent < 22 && t > 5.5 + (sent - 2) * 0.2) { rumble(fd, 50, &ids[2]); sent++; }
        struct pollfd p = { .fd = fd, .events = POLLIN };
        poll(&p, 1, 10);
        struct input_event ev;
        ssize_t n;
        while ((n = read(fd, &ev, sizeof ev)) == sizeof ev) {
            int which = -1;
            if (ev.type == EV_ABS && ev.code == ABS_X) which = ev.value < -16384 ? 0 : ev.value > 16384 ? 1 : -1;
            if (ev.type == EV_ABS && ev.code == ABS_Y) which = ev.value < -16384 ? 2 : ev.value > 16384 ? 3 : -1;
            if (which >= 0 && !seen[which]) { seen[which] = 1; order[count++] = which; }
            if (ev.type == EV_KEY && ev.code == BTN_SOUTH && ev.value == 1) presses++;
        }
        if (n < 0 && errno == ENODEV) { printf("gone\n"); break; }
    }
    printf("order");
    for (int i = 0; i < count; i++) printf(" %s", names[order[i]]);
    printf("\nbutton %d\n", presses);
    close(fd);
    return 0;
}
