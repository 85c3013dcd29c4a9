#ifndef TILTBOARD_CI2C_SHIM_H
#define TILTBOARD_CI2C_SHIM_H
// libi2c (Debian: libi2c-dev) and the kernel's i2c-dev ioctl interface.
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>
#endif
