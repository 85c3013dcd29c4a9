// Every libgpiod call of the package. The two halves below implement gpiod_shim.h once per
// libgpiod generation; the installed <gpiod.h> picks one at compile time: only 1.6.x defines
// GPIOD_LINE_BULK_MAX_LINES (2.x has no line bulks, it has struct gpiod_line_settings instead).
#include "gpiod_shim.h"

#include <errno.h>
#include <gpiod.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// errno as this API returns it; libgpiod always sets one, EIO guards against a library that forgot.
static int failure(void) {
    int e = errno;
    return e > 0 ? -e : -EIO;
}

static void copy_text(char *dst, size_t len, const char *src) {
    if (!dst || len == 0) return;
    if (!src) src = "";
    size_t n = strlen(src);
    if (n >= len) n = len - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

#if !defined(GPIOD_LINE_BULK_MAX_LINES)
#include <linux/gpio.h>
#include <sys/ioctl.h>
#endif

#if defined(GPIOD_LINE_BULK_MAX_LINES)
// ---- libgpiod 1.6 (Debian 12): lines belong to an open chip; closing the chip frees them. ------

struct tb_gpio_line {
    struct gpiod_chip *chip;
    struct gpiod_line *line;
};

int tb_gpio_api_version(void) { return 1; }

const char *tb_gpio_library_version(void) { return gpiod_version_string(); }

int tb_gpio_chip_info(const char *path, char *name, size_t name_len,
                      char *label, size_t label_len, unsigned int *num_lines) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    copy_text(name, name_len, gpiod_chip_name(chip));
    copy_text(label, label_len, gpiod_chip_label(chip));
    if (num_lines) *num_lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

int tb_gpio_find_line(const char *path, const char *name) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    // A scan that simply found nothing may leave errno at 0.
    int result = line ? (int)gpiod_line_offset(line) : (errno > 0 ? -errno : -ENOENT);
    gpiod_chip_close(chip);
    return result;
}

int tb_gpio_line_info(const char *path, unsigned int offset, char *name, size_t name_len,
                      char *consumer, size_t consumer_len, int *used) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    // A fresh chip handle reads the line's state from the kernel now, not from a cache.
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) {
        int e = failure();
        gpiod_chip_close(chip);
        return e;
    }
    copy_text(name, name_len, gpiod_line_name(line));
    int is_used = gpiod_line_is_used(line);
    copy_text(consumer, consumer_len, is_used ? gpiod_line_consumer(line) : NULL);
    if (used) *used = is_used;
    gpiod_chip_close(chip);
    return 0;
}

static int request(const char *path, unsigned int offset, int type, int active_low,
                   const char *consumer, int initial, tb_gpio_line **out) {
    tb_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) return -ENOMEM;
    handle->chip = gpiod_chip_open(path);
    if (!handle->chip) {
        int e = failure();
        free(handle);
        return e;
    }
    handle->line = gpiod_chip_get_line(handle->chip, offset);
    struct gpiod_line_request_config config = {
        .consumer = consumer,
        .request_type = type,
        .flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0,
    };
    if (!handle->line || gpiod_line_request(handle->line, &config, initial ? 1 : 0) != 0) {
        int e = failure();
        gpiod_chip_close(handle->chip);
        free(handle);
        return e;
    }
    *out = handle;
    return 0;
}

int tb_gpio_request_output(const char *path, unsigned int offset, int active_low,
                           const char *consumer, int initial_active, tb_gpio_line **line) {
    return request(path, offset, GPIOD_LINE_REQUEST_DIRECTION_OUTPUT, active_low, consumer,
                   initial_active, line);
}

int tb_gpio_request_input(const char *path, unsigned int offset, int active_low, int rising_edge,
                          const char *consumer, tb_gpio_line **line) {
    int type = rising_edge ? GPIOD_LINE_REQUEST_EVENT_RISING_EDGE : GPIOD_LINE_REQUEST_DIRECTION_INPUT;
    return request(path, offset, type, active_low, consumer, 0, line);
}

int tb_gpio_set(tb_gpio_line *line, int active) {
    return gpiod_line_set_value(line->line, active ? 1 : 0) == 0 ? 0 : failure();
}

// libgpiod 1.6 keeps an output request's descriptor to itself (gpiod_line_event_get_fd serves
// event requests only), but its gpiod_line_set_value is one GPIOHANDLE_SET_LINE_VALUES_IOCTL on
// a struct gpiohandle_data on the stack (lib/core.c, gpiod_line_set_value_bulk): no allocation,
// no lock, so it may run in a signal handler.
void tb_gpio_failsafe_off(void *line) {
    if (line) (void)gpiod_line_set_value(((tb_gpio_line *)line)->line, 0);
}

int tb_gpio_get(tb_gpio_line *line) {
    int value = gpiod_line_get_value(line->line);
    return value < 0 ? failure() : (value ? 1 : 0);
}

int tb_gpio_wait_edge(tb_gpio_line *line, int64_t timeout_ns) {
    if (timeout_ns < 0) timeout_ns = 0;
    struct timespec timeout = { .tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000 };
    int rc = gpiod_line_event_wait(line->line, &timeout);
    return rc < 0 ? failure() : rc;
}

int tb_gpio_read_edge(tb_gpio_line *line) {
    struct gpiod_line_event event;
    return gpiod_line_event_read(line->line, &event) == 0 ? 0 : failure();
}

int tb_gpio_fd(tb_gpio_line *line) {
    int fd = gpiod_line_event_get_fd(line->line);
    return fd < 0 ? failure() : fd;
}

void tb_gpio_release(tb_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    gpiod_chip_close(line->chip);
    free(line);
}

#else
// ---- libgpiod 2.x (Debian 13): a request outlives its chip and is addressed by offset. --------
// Only calls present since 2.0 are used, so 2.1 (Debian 13's first release) and later all build.

struct tb_gpio_line {
    struct gpiod_line_request *request;
    // One-event buffer made at request time, so consuming an edge allocates nothing.
    struct gpiod_edge_event_buffer *events;
    unsigned int offset;
    // The crash path's one ioctl, prepared at request time: the request's descriptor and the
    // values that drive its only line (bit 0 of the request) inactive. The kernel applies the
    // line's active-low flag (linux/gpio.h, struct gpio_v2_line_values).
    int failsafe_fd;
    struct gpio_v2_line_values failsafe_off;
};

int tb_gpio_api_version(void) { return 2; }

const char *tb_gpio_library_version(void) { return gpiod_api_version(); }

int tb_gpio_chip_info(const char *path, char *name, size_t name_len,
                      char *label, size_t label_len, unsigned int *num_lines) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) {
        int e = failure();
        gpiod_chip_close(chip);
        return e;
    }
    copy_text(name, name_len, gpiod_chip_info_get_name(info));
    copy_text(label, label_len, gpiod_chip_info_get_label(info));
    if (num_lines) *num_lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    gpiod_chip_close(chip);
    return 0;
}

int tb_gpio_find_line(const char *path, const char *name) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip, name);
    int result = offset >= 0 ? offset : (errno > 0 ? -errno : -ENOENT);
    gpiod_chip_close(chip);
    return result;
}

int tb_gpio_line_info(const char *path, unsigned int offset, char *name, size_t name_len,
                      char *consumer, size_t consumer_len, int *used) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return failure();
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) {
        int e = failure();
        gpiod_chip_close(chip);
        return e;
    }
    copy_text(name, name_len, gpiod_line_info_get_name(info));
    int is_used = gpiod_line_info_is_used(info) ? 1 : 0;
    copy_text(consumer, consumer_len, is_used ? gpiod_line_info_get_consumer(info) : NULL);
    if (used) *used = is_used;
    gpiod_line_info_free(info);
    gpiod_chip_close(chip);
    return 0;
}

static int request(const char *path, unsigned int offset, enum gpiod_line_direction direction,
                   int rising_edge, int active_low, const char *consumer, int initial,
                   tb_gpio_line **out) {
    int result = 0;
    struct gpiod_chip *chip = NULL;
    struct gpiod_line_settings *settings = NULL;
    struct gpiod_line_config *line_config = NULL;
    struct gpiod_request_config *request_config = NULL;
    tb_gpio_line *handle = calloc(1, sizeof *handle);
    if (!handle) return -ENOMEM;
    handle->offset = offset;

    settings = gpiod_line_settings_new();
    line_config = gpiod_line_config_new();
    request_config = gpiod_request_config_new();
    if (!settings || !line_config || !request_config) { result = failure(); goto done; }
    gpiod_line_settings_set_active_low(settings, active_low ? true : false);
    if (gpiod_line_settings_set_direction(settings, direction) != 0) { result = failure(); goto done; }
    if (direction == GPIOD_LINE_DIRECTION_OUTPUT &&
        gpiod_line_settings_set_output_value(settings, initial ? GPIOD_LINE_VALUE_ACTIVE
                                                               : GPIOD_LINE_VALUE_INACTIVE) != 0) {
        result = failure(); goto done;
    }
    if (rising_edge && gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_RISING) != 0) {
        result = failure(); goto done;
    }
    if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) != 0) { result = failure(); goto done; }
    gpiod_request_config_set_consumer(request_config, consumer);
    if (rising_edge && !(handle->events = gpiod_edge_event_buffer_new(1))) { result = failure(); goto done; }

    chip = gpiod_chip_open(path);
    if (!chip) { result = failure(); goto done; }
    handle->request = gpiod_chip_request_lines(chip, request_config, line_config);
    if (!handle->request) { result = failure(); goto done; }
    handle->failsafe_fd = gpiod_line_request_get_fd(handle->request);
    handle->failsafe_off.bits = 0;
    handle->failsafe_off.mask = 1;
    *out = handle;
    handle = NULL;

done:
    // The request keeps its own descriptor; the chip, settings and configs are no longer needed.
    // Cleanup must not overwrite the errno already captured in result.
    if (chip) gpiod_chip_close(chip);
    if (request_config) gpiod_request_config_free(request_config);
    if (line_config) gpiod_line_config_free(line_config);
    if (settings) gpiod_line_settings_free(settings);
    if (handle) {
        if (handle->events) gpiod_edge_event_buffer_free(handle->events);
        free(handle);
    }
    return result;
}

int tb_gpio_request_output(const char *path, unsigned int offset, int active_low,
                           const char *consumer, int initial_active, tb_gpio_line **line) {
    return request(path, offset, GPIOD_LINE_DIRECTION_OUTPUT, 0, active_low, consumer,
                   initial_active, line);
}

int tb_gpio_request_input(const char *path, unsigned int offset, int active_low, int rising_edge,
                          const char *consumer, tb_gpio_line **line) {
    return request(path, offset, GPIOD_LINE_DIRECTION_INPUT, rising_edge, active_low, consumer, 0, line);
}

int tb_gpio_set(tb_gpio_line *line, int active) {
    enum gpiod_line_value value = active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    return gpiod_line_request_set_value(line->request, line->offset, value) == 0 ? 0 : failure();
}

void tb_gpio_failsafe_off(void *line) {
    tb_gpio_line *handle = line;
    if (handle && handle->failsafe_fd >= 0) {
        (void)ioctl(handle->failsafe_fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &handle->failsafe_off);
    }
}

int tb_gpio_get(tb_gpio_line *line) {
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    if (value == GPIOD_LINE_VALUE_ERROR) return failure();
    return value == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0;
}

int tb_gpio_wait_edge(tb_gpio_line *line, int64_t timeout_ns) {
    // A negative timeout would block forever in 2.x; 1.6 has no such mode, so neither has this API.
    int rc = gpiod_line_request_wait_edge_events(line->request, timeout_ns < 0 ? 0 : timeout_ns);
    return rc < 0 ? failure() : rc;
}

int tb_gpio_read_edge(tb_gpio_line *line) {
    if (!line->events) return -EPERM;
    return gpiod_line_request_read_edge_events(line->request, line->events, 1) < 0 ? failure() : 0;
}

int tb_gpio_fd(tb_gpio_line *line) {
    // 1.6 only has a descriptor for event lines; keep that so callers see one behaviour.
    if (!line->events) return -EPERM;
    return gpiod_line_request_get_fd(line->request);
}

void tb_gpio_release(tb_gpio_line *line) {
    if (!line) return;
    gpiod_line_request_release(line->request);
    if (line->events) gpiod_edge_event_buffer_free(line->events);
    free(line);
}
#endif
