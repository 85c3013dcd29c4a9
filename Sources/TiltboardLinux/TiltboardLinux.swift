/// The Linux back ends: `/dev/i2c-N` through i2c-dev and libi2c, GPIO through libgpiod (1.6 or 2.x),
/// CLOCK_MONOTONIC, signals and crash-safe files. The only target that issues syscalls.
public enum TiltboardLinux {}
