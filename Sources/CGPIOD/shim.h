#ifndef TILTBOARD_CGPIOD_SHIM_H
#define TILTBOARD_CGPIOD_SHIM_H
// libgpiod 1.6 (Debian 12: libgpiod-dev).
#include <gpiod.h>
#endif
