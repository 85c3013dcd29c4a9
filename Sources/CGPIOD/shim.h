#ifndef TILTBOARD_CGPIOD_SHIM_H
#define TILTBOARD_CGPIOD_SHIM_H
// libgpiod as Debian installs it: 1.6 (Debian 12) or 2.x (Debian 13), whose APIs differ.
// Only CGPIODShim includes it; Swift code calls that target's version-neutral tb_gpio_* API.
#include <gpiod.h>
#endif
