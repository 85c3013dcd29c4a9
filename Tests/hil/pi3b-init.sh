#!/bin/busybox sh
# /init of the Raspberry Pi 3B guest (QEMU -M raspi3b, Debian 13's arm64 kernel): the arm64
# `tiltboard` built with Debian 13's Swift against libgpiod 2.x, run on the Pi's own drivers —
# i2c-bcm2835 (a plain-I²C adapter, so the I2C_RDWR path) and pinctrl-bcm2835 (GPIO17). The
# sensors are QEMU at24c-eeprom register files at 0x68 (MPU-6050) and 0x53 (ADXL345): static
# images preloaded in one I2C_RDWR write and read back whole after each command.
# Prints one PASS:/FAIL: line per check, then `pi3b: N passed, M failed`; the host ends QEMU on it.

/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/usr/bin:/usr/sbin:/bin:/sbin
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs none /dev
mount -t tmpfs none /tmp
mount -t debugfs none /sys/kernel/debug
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
read -r up _ < /proc/uptime; echo "guest: /init started at $up s"

TB=/usr/bin/tiltboard
BOARDS=/boards
I2CTRANSFER=/usr/sbin/i2ctransfer   # by full path: busybox has its own i2c applets
T=/sys/kernel/tracing
export HOME=/tmp/home XDG_CONFIG_HOME=/tmp/home/.config
mkdir -p $HOME

. /etc/guest-lib.sh   # check, first_err, near, json_array, json_number

# load NAME: insmod the module and its dependencies (listed in load order in /etc/pi3b-modules).
load() {
    grep "/$1.ko" /etc/pi3b-modules > /dev/null || { echo "guest: no module $1"; return 1; }
    while read -r ko; do
        insmod "$ko" 2>/tmp/insmod.err || grep -q 'File exists' /tmp/insmod.err \
            || echo "guest: insmod $ko: $(cat /tmp/insmod.err)"
        case $ko in */$1.ko) break ;; esac
    done < /etc/pi3b-modules
}
# wait_for PATH SECONDS
wait_for() {
    i=0
    while [ ! -e "$1" ] && [ $i -lt $(($2 * 10)) ]; do usleep 100000; i=$((i + 1)); done
    [ -e "$1" ]
}

# run_tb SECONDS ARGS...: stdout /tmp/out, stderr /tmp/err, status $rc.
run_tb() {
    secs=$1; shift
    timeout "$secs" "$TB" "$@" > /tmp/out 2> /tmp/err
    rc=$?
}

# ---------------------------------------------------------------------------------------------
# doctor before i2c-dev: the adapter exists, /dev/i2c-1 does not.
load i2c-bcm2835
wait_for /sys/bus/i2c/devices/i2c-1 20
doctor_no_i2c_dev() {
    [ -e /sys/bus/i2c/devices/i2c-1 ] || { why="i2c-bcm2835 gave no adapter i2c-1"; return 1; }
    run_tb 60 doctor --board $BOARDS/mpu6050-4g.json
    cat /tmp/out | sed 's/^/guest: doctor: /'
    [ $rc = 69 ] || { why="exit $rc, want 69: $(head -n 1 /tmp/out)"; return 1; }
    grep -q '^✗ I²C enabled: adapter i2c-1 exists but /dev/i2c-1 does not: the i2c-dev module is not loaded — fix: sudo modprobe i2c-dev' /tmp/out \
        || { why="$(head -n 1 /tmp/out)"; return 1; }
}
check "doctor without i2c-dev: exit 69, ✗ naming modprobe i2c-dev" doctor_no_i2c_dev

load i2c-dev
wait_for /dev/i2c-1 20
adapter_ready() {
    [ -e /dev/i2c-1 ] || { why="no /dev/i2c-1"; return 1; }
    adapter=$(cat /sys/bus/i2c/devices/i2c-1/name)
    case $adapter in *bcm2835*) ;; *) why="i2c-1 is '$adapter'"; return 1 ;; esac
    /usr/sbin/i2cdetect -F 1 > /tmp/funcs 2>&1 || { why="i2cdetect -F: $(cat /tmp/funcs)"; return 1; }
    grep -q '^I2C  *yes' /tmp/funcs || { why="I2C_FUNCS has no plain I2C"; return 1; }
    echo "guest: i2c-1 is '$adapter', plain I2C: yes"
}
check "/dev/i2c-1 is the i2c-bcm2835 adapter and I2C_FUNCS reports plain I2C" adapter_ready

# write_image ADDR SPEC...: a 256-byte register image, zero except each SPEC "REG=B0,B1,…", sent
# as one I2C_RDWR message from register 0.
write_image() {
    addr=$1; shift
    i=0; while [ $i -lt 256 ]; do eval "b$i=0x00"; i=$((i + 1)); done
    for spec in "$@"; do
        r=$((${spec%%=*}))
        for v in $(echo "${spec#*=}" | tr , ' '); do eval "b$r=$v"; r=$((r + 1)); done
    done
    list=""; i=0; while [ $i -lt 256 ]; do eval "list=\"\$list \$b$i\""; i=$((i + 1)); done
    $I2CTRANSFER -y 1 w257@$addr 0x00 $list 2>/tmp/reg.err
}
# snapshot ADDR: the whole image, read in one transfer, into /tmp/img-ADDR; byte ADDR REG prints one.
snapshot() { $I2CTRANSFER -y 1 w1@$1 0x00 r256 > /tmp/img-$1 2>/tmp/reg.err; }
byte() { tr ' ' '\n' < /tmp/img-$1 | grep . | sed -n "$(($2 + 1))p"; }

# The same raw samples as the x86 run: MPU-6050 big-endian from 0x3B (ax 4096, ay -4096, az 8192,
# temp -521, gx 655, gy -1310, gz 0); ADXL345 little-endian from 0x32 (256, -128, 512). Settings the
# drivers must overwrite, and chips awake that they must put to sleep.
# A third chip (the LIS3DH: WHO_AM_I 0x0F = 0x33, at 0x18) gets its own preload and read checks
# here, and its own at24c-eeprom device in run-pi3b.sh.
MPU_ID=0x68
preload_mpu() {
    write_image 0x68 0x75=$MPU_ID 0x3A=0x01 0x3B=0x10,0x00,0xF0,0x00,0x20,0x00,0xFD,0xF7,0x02,0x8F,0xFA,0xE2,0x00,0x00 \
        0x19=0xFF 0x1A=0x00 0x1C=0x18 0x6B=0x00
}
preload_adxl() {
    write_image 0x53 0x00=0xE5 0x30=0x82 0x32=0x00,0x01,0x80,0xFF,0x00,0x02 0x2C=0x0F 0x31=0x00 0x2D=0x08
}
images_load() {
    preload_mpu || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    preload_adxl || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    snapshot 0x68 && snapshot 0x53 || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    [ "$(byte 0x68 0x75)" = 0x68 ] && [ "$(byte 0x53 0x00)" = 0xe5 ] && [ "$(byte 0x68 0x48)" = 0x00 ] \
        && [ "$(byte 0x68 0x47)" = 0x00 ] && [ "$(byte 0x68 0x46)" = 0xe2 ] \
        || { why="read back $(head -c 120 /tmp/img-0x68)"; return 1; }
}
check "register images at 0x68 and 0x53 load and read back" images_load

probe_finds_both() {
    run_tb 60 probe --bus /dev/i2c-1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x68"' /tmp/probe | grep -q '"part":"MPU-6050"' || { why="no MPU-6050 at 0x68: $(head -c 300 /tmp/probe)"; return 1; }
    grep '"address":"0x53"' /tmp/probe | grep -q '"part":"ADXL345"' || { why="no ADXL345 at 0x53: $(head -c 300 /tmp/probe)"; return 1; }
}
check "probe --json finds MPU-6050 at 0x68 and ADXL345 at 0x53" probe_finds_both

# read_mpu BOARD ACCEL ACCEL_CONFIG SMPLRT_DIV: decoding, then the configuration left in the image.
read_mpu() {
    preload_mpu
    run_tb 60 read --board "$BOARDS/$1" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "$2" 0.002 || { why="accel [$accel], want [$2]"; return 1; }
    near "$gyro" "10,-20,0" 0.05 || { why="gyro [$gyro], want [10,-20,0]"; return 1; }
    near "$temp" "35.0" 0.05 || { why="tempC $temp, want 35.0"; return 1; }
    snapshot 0x68 || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    ac=$(byte 0x68 0x1C); div=$(byte 0x68 0x19); cfg=$(byte 0x68 0x1A); pwr=$(byte 0x68 0x6B)
    [ $((ac & 0x18)) = $(($3)) ] || { why="ACCEL_CONFIG $ac, want range bits $3"; return 1; }
    [ $((div)) = $(($4)) ] || { why="SMPLRT_DIV $div, want $4"; return 1; }
    dlpf=$((cfg & 7)); [ $dlpf -ge 1 ] && [ $dlpf -le 6 ] || { why="CONFIG $cfg: DLPF off"; return 1; }
    [ $((pwr & 0x40)) = 64 ] || { why="PWR_MGMT_1 $pwr: SLEEP not set after exit"; return 1; }
}
check "read mpu6050 ±4 g: [0.5,-0.5,1] g; image: ACCEL_CONFIG 0x08, SMPLRT_DIV 9, DLPF on, asleep" \
    read_mpu mpu6050-4g.json "0.5,-0.5,1.0" 0x08 9
check "read mpu6050 ±8 g: [1,-1,2] g; image: ACCEL_CONFIG 0x10, SMPLRT_DIV 19, DLPF on, asleep" \
    read_mpu mpu6050-8g.json "1.0,-1.0,2.0" 0x10 19

read_adxl() {
    preload_adxl
    run_tb 60 read --board "$BOARDS/$1" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out)
    near "$accel" "1.0,-0.5,2.0" 0.02 || { why="accel [$accel], want [1.0,-0.5,2.0]"; return 1; }
    snapshot 0x53 || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    fmt=$(byte 0x53 0x31); bw=$(byte 0x53 0x2C); pwr=$(byte 0x53 0x2D)
    [ $((fmt & 0x0B)) = $(($2)) ] || { why="DATA_FORMAT $fmt, want FULL_RES|range = $2"; return 1; }
    [ $((bw & 0x1F)) = $(($3)) ] || { why="BW_RATE $bw, want $3"; return 1; }
    [ $((pwr & 0x08)) = 0 ] || { why="POWER_CTL $pwr: still measuring after exit"; return 1; }
}
check "read adxl345 ±4 g: [1,-0.5,2] g; image: DATA_FORMAT 0x09, BW_RATE 0x0A, standby" read_adxl adxl345-4g.json 0x09 0x0A
check "read adxl345 ±16 g: [1,-0.5,2] g; image: DATA_FORMAT 0x0B, BW_RATE 0x09, standby" read_adxl adxl345-16g.json 0x0B 0x09

# The Sense HAT's LSM9DS1 at 0x6a (its own at24c-eeprom) and an ICM-20948 staged in the 0x68
# image, with the x86 run's raw samples: LSM9DS1 little-endian temperature 160, gyro 571 -1143 0,
# accel 4096 -4096 8192 from 0x15; ICM-20948 big-endian accel, gyro, temperature from 0x2D, its
# WHO_AM_I 0xEA at 0x00, nothing at the MPU's 0x75, REG_BANK_SEL left at bank 2. The images are
# flat (at24c has no banks): bank 2's registers land on bank 0's addresses.
preload_lsm9ds1() {
    write_image 0x6a 0x0F=0x68 0x22=0x04 0x10=0xC0 0x15=0xA0,0x00,0x07,0x3B,0x02,0x89,0xFB,0x00,0x00 \
        0x28=0x00,0x10,0x00,0xF0,0x00,0x20
}
preload_icm20948() {
    write_image 0x68 0x00=0xEA 0x7F=0x20 0x06=0x01 0x2D=0x10,0x00,0xF0,0x00,0x20,0x00,0x02,0x8F,0xFA,0xE2,0x00,0x00,0x12,0x42
}
probe_sense_hat() {
    preload_lsm9ds1 || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    run_tb 60 probe --bus /dev/i2c-1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x6a"' /tmp/probe | grep -q '"chip":"lsm9ds1"' || { why="no LSM9DS1 at 0x6a: $(head -c 400 /tmp/probe)"; return 1; }
    for a in 0x1c 0x1e 0x46 0x5c 0x5f; do
        grep "\"address\":\"$a\"" /tmp/probe | grep -q 'notaccessed' || { why="$a not named: $(head -c 600 /tmp/probe)"; return 1; }
    done
}
check "probe finds the LSM9DS1 at 0x6a and names the Sense HAT's other devices without reading them" probe_sense_hat
read_lsm9ds1() {
    preload_lsm9ds1 || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    run_tb 60 read --board "$BOARDS/lsm9ds1-4g.json" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "0.4997,-0.4997,0.9994" 0.0002 || { why="accel [$accel]"; return 1; }
    near "$gyro" "9.9925,-20.0025,0" 0.001 || { why="gyro [$gyro]"; return 1; }
    near "$temp" "35.0" 0.01 || { why="tempC $temp"; return 1; }
    snapshot 0x6a || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    g1=$(byte 0x6a 0x10); xl6=$(byte 0x6a 0x20); c8=$(byte 0x6a 0x22)
    [ "$g1" = 0x08 ] && [ "$xl6" = 0x00 ] && [ "$c8" = 0x44 ] \
        || { why="CTRL_REG1_G $g1 (want 0x08), CTRL_REG6_XL $xl6 (0x00), CTRL_REG8 $c8 (0x44)"; return 1; }
}
check "read lsm9ds1 ±4 g: temperature, gyro and accel from one burst; image: powered down, BDU and IF_ADD_INC" read_lsm9ds1
probe_icm20948() {
    preload_icm20948 || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    run_tb 60 probe --bus /dev/i2c-1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x68"' /tmp/probe | grep -q '"chip":"icm20948"' || { why="no ICM-20948 at 0x68: $(head -c 400 /tmp/probe)"; return 1; }
    snapshot 0x68 || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    [ "$(byte 0x68 0x7F)" = 0x20 ] || { why="REG_BANK_SEL $(byte 0x68 0x7F) after probe: probe wrote it"; return 1; }
}
check "probe tells an ICM-20948 at 0x68 from the MPU-6050 with reads only (REG_BANK_SEL untouched)" probe_icm20948
read_icm20948() {
    preload_icm20948 || { why="i2ctransfer: $(cat /tmp/reg.err)"; return 1; }
    run_tb 60 read --board "$BOARDS/icm20948-4g.json" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "0.5,-0.5,1.0" 0.0002 || { why="accel [$accel]"; return 1; }
    near "$gyro" "10,-20,0" 0.001 || { why="gyro [$gyro]"; return 1; }
    near "$temp" "35.0" 0.01 || { why="tempC $temp"; return 1; }
    snapshot 0x68 || { why="read back: $(cat /tmp/reg.err)"; return 1; }
    sel=$(byte 0x68 0x7F); pwr=$(byte 0x68 0x06); ac=$(byte 0x68 0x14); div=$(byte 0x68 0x00)
    [ "$sel" = 0x00 ] && [ "$pwr" = 0x41 ] && [ "$ac" = 0x23 ] && [ "$div" = 0x0a ] \
        || { why="REG_BANK_SEL $sel (want 0x00), PWR_MGMT_1 $pwr (0x41), ACCEL_CONFIG $ac (0x23), GYRO_SMPLRT_DIV $div (0x0a)"; return 1; }
}
check "read icm20948 ±4 g: [0.5,-0.5,1] g; image: back in bank 0, asleep, ±4 g, 1125/11 Hz" read_icm20948
preload_mpu

# The kernel's own tracepoints: a burst through I2C_RDWR is i2c_write (1 byte, the register) and
# i2c_read (14 bytes, message #1 of the same transfer) with no smbus_* event; an SMBus call emulated on this adapter emits both.
i2c_rdwr_traced() {
    [ -d $T/events/i2c ] || { why="no i2c tracepoints in $T"; return 1; }
    echo 0 > $T/tracing_on; echo > $T/trace
    echo 1 > $T/events/i2c/enable; echo 1 > $T/events/smbus/enable; echo 1 > $T/tracing_on
    preload_mpu
    echo > $T/trace
    run_tb 60 read --board "$BOARDS/mpu6050-4g.json" --count 1 --json
    echo 0 > $T/tracing_on
    cp $T/trace /tmp/trace
    echo 0 > $T/events/i2c/enable; echo 0 > $T/events/smbus/enable
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    bursts=$(grep -cE 'i2c_read: i2c-1 #1 a=068 f=[0-9a-f]+ l=14( |$)' /tmp/trace)
    smbus=$(grep -c 'smbus_' /tmp/trace)
    echo "guest: trace: $bursts I2C_RDWR reads of 14 bytes, $smbus smbus events, $(grep -c 'i2c_write:' /tmp/trace) i2c_write"
    grep -m 4 -E 'i2c_(write|read):' /tmp/trace | sed 's/^ */guest: trace: /' 
    [ "$bursts" -ge 1 ] || { why="no 14-byte i2c_read at 0x68 in the trace"; return 1; }
    [ "$smbus" = 0 ] || { why="$smbus smbus events: $(grep -m 1 smbus_ /tmp/trace)"; return 1; }
}
check "read goes through I2C_RDWR: 14-byte i2c_read bursts, no smbus events (tracepoints)" i2c_rdwr_traced

# ---------------------------------------------------------------------------------------------
# GPIO17 on pinctrl-bcm2835: the level shows in /sys/kernel/debug/gpio while the line is held.
gpio17() { grep 'GPIO17' /sys/kernel/debug/gpio | head -n 1; }
haptics_gpio17() {
    grep -q pinctrl-bcm2835 /sys/kernel/debug/gpio || { why="no pinctrl-bcm2835 chip"; return 1; }
    [ -d $T/events/gpio ] && { echo > $T/trace; echo 1 > $T/events/gpio/gpio_value/enable; echo 1 > $T/tracing_on; }
    "$TB" haptics --board "$BOARDS/mpu6050-4g.json" --pattern 1500 > /tmp/out 2> /tmp/err &
    pid=$!
    seen=""; i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 400 ]; do
        line=$(gpio17)
        case $line in *tiltboard*out\ hi*) seen=$line; break ;; esac
        usleep 50000; i=$((i + 1))
    done
    i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do usleep 50000; i=$((i + 1)); done
    kill $pid 2>/dev/null; wait $pid; rc=$?
    [ -d $T/events/gpio ] && { echo 0 > $T/tracing_on; echo 0 > $T/events/gpio/gpio_value/enable; }
    echo "guest: GPIO17 while playing: $seen"
    echo "guest: GPIO17 after: $(gpio17)"
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    [ -n "$seen" ] || { why="never saw GPIO17 'tiltboard … out hi': $(gpio17)"; return 1; }
    case $(gpio17) in *tiltboard*) why="still held: $(gpio17)"; return 1 ;; esac
    if [ -d $T/events/gpio ]; then
        num=$(echo "$seen" | sed -n 's/.*gpio-\([0-9]*\).*/\1/p')
        last=$(grep "gpio_value: $num set" $T/trace | tail -n 1)
        echo "guest: gpio_value events: $(grep -c "gpio_value: $num set" $T/trace), last: ${last##*: }"
        case $last in *"set 0") ;; *) why="last value written to gpio $num: '$last', want set 0"; return 1 ;; esac
    fi
}
check "haptics drives GPIO17 high (debugfs), ends with 0 written and the line released" haptics_gpio17

# ---------------------------------------------------------------------------------------------
# Error paths of the commands.
absent_device() {
    run_tb 60 read --board "$BOARDS/absent-0x69.json" --count 1 --json
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    grep -q "no device answers" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "no chip at 0x69: exit 69, \"no device answers\"" absent_device

wrong_id() {
    MPU_ID=0x42 preload_mpu
    run_tb 60 read --board "$BOARDS/mpu6050-4g.json" --count 1 --json
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    grep -q "found 0x42 at 0x68 on /dev/i2c-1" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "WHO_AM_I 0x42: exit 69 naming 0x42" wrong_id

echo 'tester:x:1000:1000:tester:/tmp/home:/bin/sh' >> /etc/passwd
as_tester() { # SECONDS ARGS...: tiltboard as a user without the i2c and gpio groups
    secs=$1; shift
    timeout "$secs" su -s /bin/sh tester -c "$TB $*" > /tmp/out 2> /tmp/err
    rc=$?
}
i2c_permission() {
    preload_mpu
    chmod 0600 /dev/i2c-1
    as_tester 60 read --board "$BOARDS/mpu6050-4g.json" --count 1 --json
    chmod 0666 /dev/i2c-1
    [ $rc = 77 ] || { why="exit $rc, want 77: $(first_err)"; return 1; }
    grep -q "udev" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "I²C without permission: exit 77, message names the udev rule" i2c_permission

# hold_gpio17: gpioset (libgpiod 2.x keeps the line until killed) holds the motor line.
hold_gpio17() {
    gpioset -c gpiochip0 17=0 &
    gpid=$!
    i=0
    until gpio17 | grep -q gpioset; do
        i=$((i + 1)); [ $i -lt 100 ] || { kill $gpid; why="gpioset never took the line: $(gpio17)"; return 1; }
        usleep 100000
    done
}
motor_busy() {
    hold_gpio17 || return 1
    run_tb 60 haptics --board "$BOARDS/mpu6050-4g.json" --pattern 100
    kill $gpid; wait $gpid
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    grep -q '"gpioset"' /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "motor line held by gpioset: haptics exits 69 naming gpioset" motor_busy

# ---------------------------------------------------------------------------------------------
# doctor on the Pi's own stack, all well and with each failure staged.
# doctor_run WANT-EXIT [AS-TESTER] BOARD: stdout /tmp/out, echoed to the console.
doctor_run() {
    want=$1 board=$2
    if [ "${3:-}" = tester ]; then as_tester 60 doctor --board "$BOARDS/$board"; else run_tb 60 doctor --board "$BOARDS/$board"; fi
    sed 's/^/guest: doctor: /' /tmp/out
    [ $rc = "$want" ] || { why="exit $rc, want $want: $(grep -m 1 '^✗' /tmp/out || first_err)"; return 1; }
}
doctor_all_well() {
    preload_mpu
    doctor_run 0 mpu6050-4g.json || return 1
    grep -q '^✓ bus clock: 100 kHz (.*clock-frequency); 100 Hz × 14-byte samples use 16 % of the bus$' /tmp/out \
        || { why="bus clock line: $(grep 'bus clock' /tmp/out)"; return 1; }
    grep -q '^✓ sensor: MPU-6050 at 0x68 on /dev/i2c-1 (ID 0x68)$' /tmp/out || { why="sensor line: $(grep 'sensor' /tmp/out)"; return 1; }
    grep -q '^✓ motor line: pinctrl-bcm2835 line 17 (GPIO17) is free for the motor$' /tmp/out || { why="motor line: $(grep 'motor' /tmp/out)"; return 1; }
}
check "doctor, all well: exit 0, bus clock 100 kHz from the device tree, MPU-6050, GPIO17 free" doctor_all_well

doctor_no_group() {
    mkdir -p /etc/udev/rules.d && : > /etc/udev/rules.d/60-tiltboard.rules
    printf 'root:x:0:\ni2c:x:998:\ngpio:x:997:\ntester:x:1000:\n' > /etc/group
    chgrp 998 /dev/i2c-1 && chmod 0660 /dev/i2c-1
    doctor_run 77 mpu6050-4g.json tester; r=$?
    chgrp 0 /dev/i2c-1 && chmod 0666 /dev/i2c-1
    [ $r = 0 ] || return 1
    grep -q '^✗ I²C permission: /dev/i2c-1: Permission denied — fix: join the i2c group: sudo usermod -aG i2c \$USER, then log in again$' /tmp/out \
        || { why="$(grep -m 1 '^✗' /tmp/out)"; return 1; }
}
check "doctor as a user outside the i2c group: exit 77, fix: join the i2c group" doctor_no_group

doctor_absent() {
    doctor_run 69 absent-0x69.json || return 1
    grep -q '^✗ sensor: nothing answers at 0x69 on /dev/i2c-1 — fix: check the wiring' /tmp/out || { why="$(grep -m 1 '^✗' /tmp/out)"; return 1; }
}
check "doctor, nothing at 0x69: exit 69, ✗ nothing answers" doctor_absent

doctor_wrong_id() {
    MPU_ID=0x42 preload_mpu
    doctor_run 69 mpu6050-4g.json || return 1
    grep -q '^✗ sensor: found 0x42 at 0x68 on /dev/i2c-1, expected 0x68 (MPU-6050)' /tmp/out || { why="$(grep -m 1 '^✗' /tmp/out)"; return 1; }
}
check "doctor, WHO_AM_I 0x42: exit 69 naming 0x42" doctor_wrong_id

doctor_clone() {
    MPU_ID=0x70 preload_mpu
    doctor_run 0 mpu6050-4g.json || return 1
    grep -q '^✓ sensor: MPU-6500 (clone ID 0x70) at 0x68 on /dev/i2c-1: a clone' /tmp/out || { why="$(grep sensor /tmp/out)"; return 1; }
}
check "doctor, WHO_AM_I 0x70: exit 0, the clone named" doctor_clone

doctor_motor_held() {
    preload_mpu
    hold_gpio17 || return 1
    doctor_run 69 mpu6050-4g.json; r=$?
    kill $gpid; wait $gpid
    [ $r = 0 ] || return 1
    grep -q '^✗ motor line: GPIO pinctrl-bcm2835 line 17 (GPIO17) is in use by "gpioset"' /tmp/out || { why="$(grep -m 1 '^✗' /tmp/out)"; return 1; }
}
check "doctor, GPIO17 held by gpioset: exit 69 naming gpioset" doctor_motor_held

echo "pi3b: $pass passed, $fail failed"
sync
while :; do sleep 60; done   # the host ends QEMU on the line above (poweroff does not, on raspi3b)
