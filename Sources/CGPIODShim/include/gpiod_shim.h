#ifndef TILTBOARD_GPIOD_SHIM_H
#define TILTBOARD_GPIOD_SHIM_H
// One small GPIO API over both libgpiod generations, so Swift never sees <gpiod.h>:
// libgpiod 1.6 (Debian 12, libgpiod.so.2) and 2.x (Debian 13 / Raspberry Pi OS Trixie,
// libgpiod.so.3) differ in every call, and Swift's #if cannot test the C macros that tell
// them apart. gpiod_shim.c is compiled against whichever <gpiod.h> is installed.
//
// Every function that can fail returns 0 (or a count/offset/level) on success and -errno on
// failure, with the kernel's errno kept: ENOENT (no such path or line), ENOTTY/ENODEV (the path
// is not a GPIO chip), EACCES/EPERM (no permission), EBUSY (line held by another consumer).
// Strings are copied into the caller's buffers, truncated and always NUL-terminated.

#include <stddef.h>
#include <stdint.h>

/// A requested line (output, or input with edge events) and the chip it came from.
typedef struct tb_gpio_line tb_gpio_line;

/// The libgpiod API generation this file was compiled against: 1 (1.6.x) or 2 (2.x).
int tb_gpio_api_version(void);

/// The loaded library's own version string, e.g. "1.6.3" or "2.1.3".
const char *tb_gpio_library_version(void);

/// Opens the chip at `path` just long enough to read its kernel name (`gpiochipN`), label and
/// number of lines. Returns 0 or -errno.
int tb_gpio_chip_info(const char *path, char *name, size_t name_len,
                      char *label, size_t label_len, unsigned int *num_lines);

/// The offset of the first line called `name` on the chip at `path`, or -ENOENT when none is.
int tb_gpio_find_line(const char *path, const char *name);

/// The line's name and, when it is in use, its consumer ("" when the holder gave none).
/// `*used` is 1 when the kernel or another process holds the line. Returns 0 or -errno.
int tb_gpio_line_info(const char *path, unsigned int offset, char *name, size_t name_len,
                      char *consumer, size_t consumer_len, int *used);

/// Requests the line as an output driven to `initial_active` (logical level) from the first
/// instant. On success `*line` owns the request; give it back with tb_gpio_release.
int tb_gpio_request_output(const char *path, unsigned int offset, int active_low,
                           const char *consumer, int initial_active, tb_gpio_line **line);

/// Requests the line as an input; with `rising_edge`, the kernel queues an event on each
/// inactive → active transition (logical, so a falling pin on an active-low line).
int tb_gpio_request_input(const char *path, unsigned int offset, int active_low, int rising_edge,
                          const char *consumer, tb_gpio_line **line);

/// Drives a requested output to its active (1) or inactive (0) level. Returns 0 or -errno.
int tb_gpio_set(tb_gpio_line *line, int active);

/// The line's logical level: 1 active, 0 inactive, or -errno.
int tb_gpio_get(tb_gpio_line *line);

/// Waits up to `timeout_ns` (0: just look) for a queued edge: 1 when one is queued, 0 on
/// timeout, -errno on failure (-EINTR when a signal arrived). Does not consume the edge.
int tb_gpio_wait_edge(tb_gpio_line *line, int64_t timeout_ns);

/// Consumes one queued edge; blocks when none is queued. Returns 0 or -errno.
int tb_gpio_read_edge(tb_gpio_line *line);

/// The descriptor that polls readable while an edge is queued, or -errno.
int tb_gpio_fd(tb_gpio_line *line);

/// Drives a requested output inactive with one system call on data prepared when it was
/// requested: no allocation, no lock, so a crash's signal handler may call it. `line` is a
/// tb_gpio_line (void * so it fits a fail-safe action); NULL is ignored.
void tb_gpio_failsafe_off(void *line);

/// Releases the line, closes what the request opened and frees `line`. NULL is ignored.
void tb_gpio_release(tb_gpio_line *line);

#endif
