/* A game's view of several `tiltboard gamepad` devices through SDL2 (Debian's libSDL2, the
 * library most games on Linux use): waits until SDL sees WANT joysticks, opens each (as a game
 * controller when SDL has a mapping for it, as a joystick otherwise), prints what SDL reports
 * about them, then answers commands from stdin, one per line, while it keeps SDL's joystick
 * state updated every 10 ms (which also ends a timed rumble, as in a game's frame loop).
 *
 * Usage: SDL_JOYSTICK_DISABLE_UDEV=1 sdl-pads WANT SECONDS
 *   (without udev in the guest SDL scans /dev/input itself, in the order of the event numbers)
 * Lines printed first: "pads N", then per device index I (SDL's order)
 *   "pad I controller=0|1 rumble=0|1 player=P guid=GUID path=PATH name=NAME" (name last).
 * Commands:
 *   mark               forget the peaks; prints "marked"
 *   until I over|under N MS
 *                      waits up to MS ms for pad I's stick (the larger of |x| and |y|) to pass
 *                      over N, or fall under N; prints "until I ok MS_WAITED" or "until I timeout"
 *   settle I N HOLD LIMIT
 *                      waits up to LIMIT ms for pad I's stick to stay under N for HOLD ms on end
 *                      (a stick coming back may swing past the centre first); prints
 *                      "settle I ok MS_WAITED" or "settle I timeout STICK"
 *   peaks              prints "peak I PEAK X Y" per pad: the largest |x| or |y| since the last
 *                      mark, and the stick now (the controller's left stick, or axes 0 and 1)
 *   rumble I MS        full-strength rumble on pad I for MS ms (SDL_GameControllerRumble, or
 *                      SDL_JoystickRumble for a plain joystick); prints "rumble I MS RC"
 *   quit (or EOF)      closes the pads and SDL; prints "bye" */
#include <SDL.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PADS 8

static SDL_GameController *controllers[MAX_PADS];
static SDL_Joystick *joysticks[MAX_PADS];
static int pads, peak[MAX_PADS];

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stick(int i, int *x, int *y) {
    if (!joysticks[i]) {
        *x = *y = 0;
    } else if (controllers[i]) {
        *x = SDL_GameControllerGetAxis(controllers[i], SDL_CONTROLLER_AXIS_LEFTX);
        *y = SDL_GameControllerGetAxis(controllers[i], SDL_CONTROLLER_AXIS_LEFTY);
    } else {
        *x = SDL_JoystickGetAxis(joysticks[i], 0);
        *y = SDL_JoystickGetAxis(joysticks[i], 1);
    }
}

static int size(int x, int y) {
    x = abs(x); y = abs(y);
    return x > y ? x : y;
}

/* One frame: SDL reads the devices (and stops expired rumbles), the peaks follow. */
static void frame(void) {
    SDL_Event event;
    SDL_JoystickUpdate();
    while (SDL_PollEvent(&event)) {}
    for (int i = 0; i < pads; i++) {
        int x, y;
        stick(i, &x, &y);
        if (size(x, y) > peak[i]) peak[i] = size(x, y);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: sdl-pads WANT SECONDS\n"); return 2; }
    int want = atoi(argv[1]);
    double limit = atof(argv[2]), start = now();
    if (want < 1 || want > MAX_PADS) { fprintf(stderr, "WANT must be 1…%d\n", MAX_PADS); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stdin, NULL, _IONBF, 0);   /* one command per poll(2): stdio must not read ahead */
    if (SDL_Init(SDL_INIT_JOYSTICK | SDL_INIT_GAMECONTROLLER) != 0) { printf("SDL_Init failed: %s\n", SDL_GetError()); return 1; }
    SDL_version v;
    SDL_GetVersion(&v);
    printf("sdl %d.%d.%d\n", v.major, v.minor, v.patch);
    while (SDL_NumJoysticks() < want) {
        if (now() - start > limit) { printf("only %d joysticks after %s s\n", SDL_NumJoysticks(), argv[2]); SDL_Quit(); return 1; }
        SDL_Delay(20);
        SDL_JoystickUpdate();
    }
    pads = SDL_NumJoysticks();
    if (pads > MAX_PADS) pads = MAX_PADS;
    printf("pads %d\n", pads);
    for (int i = 0; i < pads; i++) {
        char guid[33];
        SDL_JoystickGetGUIDString(SDL_JoystickGetDeviceGUID(i), guid, sizeof guid);
        const char *name = SDL_JoystickNameForIndex(i), *path = SDL_JoystickPathForIndex(i);
        int player = SDL_JoystickGetDevicePlayerIndex(i);
        if (SDL_IsGameController(i)) {
            controllers[i] = SDL_GameControllerOpen(i);
            joysticks[i] = controllers[i] ? SDL_GameControllerGetJoystick(controllers[i]) : NULL;
        } else {
            joysticks[i] = SDL_JoystickOpen(i);
        }
        if (!joysticks[i]) { printf("open %d failed: %s\n", i, SDL_GetError()); SDL_Quit(); return 1; }
        printf("pad %d controller=%d rumble=%d player=%d guid=%s path=%s name=%s\n", i, controllers[i] != NULL,
               SDL_JoystickHasRumble(joysticks[i]) == SDL_TRUE, player, guid, path ? path : "?", name ? name : "?");
    }

    char line[200];
    for (;;) {
        struct pollfd p = { .fd = 0, .events = POLLIN };
        if (poll(&p, 1, 10) > 0) {
            if (!fgets(line, sizeof line, stdin)) break;
            int i = -1, n = 0, ms = 0, hold = 0;
            char how[8] = "";
            if (strncmp(line, "quit", 4) == 0) break;
            if (strncmp(line, "mark", 4) == 0) {
                frame();
                for (int k = 0; k < pads; k++) peak[k] = 0;
                printf("marked\n");
            } else if (strncmp(line, "peaks", 5) == 0) {
                frame();
                for (int k = 0; k < pads; k++) {
                    int x, y;
                    stick(k, &x, &y);
                    printf("peak %d %d %d %d\n", k, peak[k], x, y);
                }
            } else if (sscanf(line, "until %d %7s %d %d", &i, how, &n, &ms) == 4 && i >= 0 && i < pads) {
                int over = strcmp(how, "over") == 0, x, y;
                double t0 = now();
                for (;;) {
                    frame();
                    stick(i, &x, &y);
                    if (over ? size(x, y) > n : size(x, y) < n) { printf("until %d ok %.0f\n", i, (now() - t0) * 1000); break; }
                    if ((now() - t0) * 1000 > ms) { printf("until %d timeout\n", i); break; }
                    SDL_Delay(10);
                }
            } else if (sscanf(line, "settle %d %d %d %d", &i, &n, &hold, &ms) == 4 && i >= 0 && i < pads) {
                int x, y;
                double t0 = now(), since = -1;
                for (;;) {
                    frame();
                    stick(i, &x, &y);
                    double t = now();
                    if (size(x, y) >= n) since = -1;
                    else if (since < 0) since = t;
                    if (since >= 0 && (t - since) * 1000 >= hold) { printf("settle %d ok %.0f\n", i, (t - t0) * 1000); break; }
                    if ((t - t0) * 1000 > ms) { printf("settle %d timeout %d\n", i, size(x, y)); break; }
                    SDL_Delay(10);
                }
            } else if (sscanf(line, "rumble %d %d", &i, &ms) == 2 && i >= 0 && i < pads) {
                int rc = controllers[i] ? SDL_GameControllerRumble(controllers[i], 0xFFFF, 0xFFFF, (Uint32)ms)
                                        : SDL_JoystickRumble(joysticks[i], 0xFFFF, 0xFFFF, (Uint32)ms);
                printf("rumble %d %d %d%s%s\n", i, ms, rc, rc ? " " : "", rc ? SDL_GetError() : "");
            } else {
                printf("unknown command: %s", line);
            }
        }
        frame();
        for (int k = 0; k < pads; k++)
            if (joysticks[k] && !SDL_JoystickGetAttached(joysticks[k])) { printf("gone %d\n", k); joysticks[k] = NULL; controllers[k] = NULL; }
    }
    for (int k = 0; k < pads; k++) {
        if (controllers[k]) SDL_GameControllerClose(controllers[k]);
        else if (joysticks[k]) SDL_JoystickClose(joysticks[k]);
    }
    SDL_Quit();
    printf("bye\n");
    return 0;
}
