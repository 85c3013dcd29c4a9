#!/bin/busybox sh
# /init of the HIL guest: loads i2c-stub and gpio-sim, mounts the repository over 9p, runs the
# real `tiltboard` against them and prints one PASS:/FAIL: line per check, then
# `hil: N passed, M failed`. The host script only trusts that last line.
# Busybox applets shadow i2c-tools: the real tools are always called by full path.

/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt /sbin /usr/bin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu
mount -t proc none /proc
mount -t sysfs none /sys
mount -t devtmpfs none /dev
mount -t tmpfs none /tmp
read -r up _ < /proc/uptime; echo "guest: /init started at $up s"
. /etc/hil.conf   # KVER, TB, GPIOD2 (the libgpiod 2.x build's folder), relative to the repository root

. /etc/guest-lib.sh   # check, first_err, near, json_array, json_number

finish() {
    echo "hil: $pass passed, $fail failed"
    sync
    poweroff -f
}

while read -r ko params; do
    [ -n "$ko" ] || continue
    insmod "$ko" $params 2>/tmp/insmod.err || echo "guest: insmod $ko failed: $(cat /tmp/insmod.err)"
done < /etc/hil-modules

mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose host /mnt || echo "guest: 9p mount failed"
mkdir -p "$SWIFTLIB" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose swiftlib "$SWIFTLIB" \
    || echo "guest: 9p mount of the Swift runtime failed"
TB=/mnt/$TB
TB_MAIN=$TB   # the libgpiod 2.x checks point $TB at the other build
XCTEST=/mnt/$XCTEST
BOARDS=/mnt/Tests/hil/boards
I2CGET=/usr/sbin/i2cget
I2CSET=/usr/sbin/i2cset
BUS=0

# ---------------------------------------------------------------------------------------------
# gpio-sim: a chip labelled like a Pi 4's, GPIO17 = motor, GPIO4 = sensor interrupt, GPIO27 = the
# second player's motor (the two players' checks at the end).
GS=/sys/kernel/config/gpio-sim/tiltboard
setup_gpio_sim() {
    mount -t configfs none /sys/kernel/config 2>/dev/null
    mkdir -p $GS/bank0 || { why="configfs has no gpio-sim"; return 1; }
    echo pinctrl-bcm2711 > $GS/bank0/label
    echo 58 > $GS/bank0/num_lines
    for n in 4 17 27; do
        mkdir $GS/bank0/line$n && echo GPIO$n > $GS/bank0/line$n/name
    done
    echo 1 > $GS/live || { why="could not bring the chip live"; return 1; }
    SIM=/sys/devices/platform/$(cat $GS/dev_name)/$(cat $GS/bank0/chip_name)
    CHIPDEV=/dev/$(cat $GS/bank0/chip_name)
    [ -e "$SIM/sim_gpio17/value" ] || { why="no $SIM/sim_gpio17/value"; return 1; }
    gpioinfo pinctrl-bcm2711 > /tmp/gpioinfo 2>&1 || { why="gpioinfo: $(cat /tmp/gpioinfo)"; return 1; }
    grep -q '"GPIO17"' /tmp/gpioinfo || { why="no line named GPIO17"; return 1; }
}
check "gpio-sim chip pinctrl-bcm2711 with GPIO4 and GPIO17" setup_gpio_sim

# The libgpiod backend's own tests (Tests/TiltboardLinuxTests/GPIOSimTests.swift) on this chip.
gpio_backend_tests() {
    [ -x "$XCTEST" ] || { why="no test bundle at $XCTEST"; return 1; }
    TILTBOARD_GPIO_SIM="pinctrl-bcm2711:$SIM" timeout 180 "$XCTEST" TiltboardLinuxTests.GPIOSimTests > /tmp/xct 2>&1
    rc=$?
    grep -E 'error|failed' /tmp/xct | head -n 5 | sed 's/^/guest: xctest: /'
    [ $rc = 0 ] || { why="exit $rc: $(grep -m 1 -E 'error' /tmp/xct | cut -c 1-300)"; return 1; }
    grep -q 'Executed 9 tests, with 0 failures' /tmp/xct || { why="$(grep -m 1 Executed /tmp/xct)"; return 1; }
}
check "libgpiod backend tests (GPIOSimTests) on gpio-sim" gpio_backend_tests

motor_value() { read -r v < "$SIM/sim_gpio17/value"; echo "$v"; }
line17_info() { gpioinfo pinctrl-bcm2711 2>/dev/null | grep 'line  *17:'; }

# ---------------------------------------------------------------------------------------------
# I²C: i2c-stub with an MPU-6050 at 0x68 and an ADXL345 at 0x53.
i2c_stub_ready() {
    [ -e /dev/i2c-$BUS ] || { why="no /dev/i2c-$BUS"; return 1; }
    grep -q "SMBus stub" /sys/class/i2c-dev/i2c-$BUS/name || { why="i2c-$BUS is $(cat /sys/class/i2c-dev/i2c-$BUS/name)"; return 1; }
}
check "i2c-stub adapter at /dev/i2c-$BUS" i2c_stub_ready

# Data registers: MPU-6050 big-endian from 0x3B (ax ay az temp gx gy gz), ADXL345 little-endian
# from 0x32. Raw values: ax 4096, ay -4096, az 8192, temp -521, gx 655, gy -1310, gz 0;
# ADXL345 x 256, y -128, z 512.
preload_mpu() {
    $I2CSET -y $BUS 0x68 0x75 0x68              # WHO_AM_I
    $I2CSET -y $BUS 0x68 0x3A 0x01              # INT_STATUS: data ready, forever (the stub keeps it)
    $I2CSET -y $BUS 0x68 0x3B 0x10 0x00 0xF0 0x00 0x20 0x00 0xFD 0xF7 0x02 0x8F 0xFA 0xE2 0x00 0x00 i
    # Configuration the driver must overwrite, and an awake chip it must put to sleep.
    $I2CSET -y $BUS 0x68 0x19 0xFF
    $I2CSET -y $BUS 0x68 0x1A 0x00
    $I2CSET -y $BUS 0x68 0x1C 0x18
    $I2CSET -y $BUS 0x68 0x6B 0x00
}
preload_adxl() {
    $I2CSET -y $BUS 0x53 0x00 0xE5              # DEVID
    $I2CSET -y $BUS 0x53 0x30 0x82              # INT_SOURCE: DATA_READY | watermark
    $I2CSET -y $BUS 0x53 0x32 0x00 0x01 0x80 0xFF 0x00 0x02 i
    $I2CSET -y $BUS 0x53 0x2C 0x0F              # BW_RATE 3200 Hz
    $I2CSET -y $BUS 0x53 0x31 0x00              # DATA_FORMAT ±2 g, 10-bit
    $I2CSET -y $BUS 0x53 0x2D 0x08              # POWER_CTL Measure: the driver must clear it
}
preload_mpu
preload_adxl
# ---------------------------------------------------------------------------------------------
# LIS3DH at 0x18. i2c-stub is a plain register file with SMBus transfers only: the LIS3DH's
# auto-increment flag (bit 7 of the sub-address) reaches it as part of the SMBus command byte,
# so a multi-byte transfer at register R lands in the stub's cells R|0x80 onwards, a single
# byte at R. Staged accordingly: WHO_AM_I at 0x0F (read alone), the sample at 0xA8…0xAD (the
# 6-byte burst from OUT_X_L). CTRL_REG1…6 are written as one block at 0xA0 and read back from
# there; power-down on exit is a single byte at 0x20. The stub neither samples nor increments,
# so this proves the transfers and their sub-addresses, the decoding and the register values,
# not the chip's own auto-increment.
# Sample at ±4 g (2 mg per 12-bit digit, left-justified, little-endian): x 500 (1 g), y −250
# (−0.5 g), z 1000 (2 g) → words 0x1F40, 0xF060, 0x3E80. At ±16 g (12 mg) the same words read
# 6, −3 and 12 g.
preload_lis3dh() {
    $I2CSET -y $BUS 0x18 0x0F 0x33              # WHO_AM_I
    $I2CSET -y $BUS 0x18 0xA8 0x40 0x1F 0x60 0xF0 0x80 0x3E i
    # What an earlier session left: generator 1 on INT1, the temperature ADC on, FIFO stream.
    $I2CSET -y $BUS 0x18 0xA0 0x57 0x01 0x40 0x00 0x48 0x00 i
    $I2CSET -y $BUS 0x18 0x30 0x2A              # INT1_CFG: X/Y/Z high events
    $I2CSET -y $BUS 0x18 0x1F 0xC0              # TEMP_CFG_REG: ADC and temperature on
    $I2CSET -y $BUS 0x18 0x20 0x57              # CTRL_REG1 single-byte cell: 100 Hz, the driver must power it down
}
preload_lis3dh

# reg ADDR REG: prints 0xNN; fails (and sets $why) when i2cget does.
reg() {
    r=$($I2CGET -y $BUS "$1" "$2" 2>&1) && [ -n "$r" ] && { echo "$r"; return 0; }
    echo "i2cget $1 $2: $r" > /tmp/reg.err; return 1
}

# run_tb SECONDS ARGS...: runs tiltboard with a time limit; stdout /tmp/out, stderr /tmp/err, status $rc.
run_tb() {
    secs=$1; shift
    timeout "$secs" "$TB" "$@" > /tmp/out 2> /tmp/err
    rc=$?
    case $rc in
        124|143) echo "hil: error: timed out after $secs s (a hang: e.g. polling a bit i2c-stub never clears)" >> /tmp/err ;;
    esac
}

# ---------------------------------------------------------------------------------------------
probe_finds_both() {
    run_tb 30 probe --bus /dev/i2c-$BUS --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x68"' /tmp/probe | grep '"chip":"mpu6050"' | grep -q '"part":"MPU-6050"' \
        || { why="no MPU-6050 at 0x68 in: $(head -c 300 /tmp/probe)"; return 1; }
    grep '"address":"0x53"' /tmp/probe | grep '"chip":"adxl345"' | grep -q '"part":"ADXL345"' \
        || { why="no ADXL345 at 0x53 in: $(head -c 300 /tmp/probe)"; return 1; }
    grep '"address":"0x18"' /tmp/probe | grep '"chip":"lis3dh"' | grep -q '"part":"LIS3DH"' \
        || { why="no LIS3DH at 0x18 in: $(head -c 300 /tmp/probe)"; return 1; }
}
check "probe --json finds MPU-6050 at 0x68, ADXL345 at 0x53 and LIS3DH at 0x18" probe_finds_both

# read_mpu BOARD ACCEL(g) ACCEL_CONFIG SMPLRT_DIV
read_mpu() {
    preload_mpu
    run_tb 30 read --board "$BOARDS/$1" --count 1 --json
    last_read_rc=$rc
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "$2" 0.002 || { why="accel [$accel], want [$2]"; return 1; }
    near "$gyro" "10,-20,0" 0.05 || { why="gyro [$gyro], want [10,-20,0]"; return 1; }
    near "$temp" "35.0" 0.05 || { why="tempC $temp, want 35.0"; return 1; }
    mpu_read_ok=1
}
mpu_registers() {
    [ "$last_read_rc" = 0 ] || { why="the read before exited $last_read_rc"; return 1; }
    ac=$(reg 0x68 0x1C) && div=$(reg 0x68 0x19) && cfg=$(reg 0x68 0x1A) && pwr=$(reg 0x68 0x6B) \
        || { why=$(cat /tmp/reg.err); return 1; }
    [ $((ac & 0x18)) = $(($2)) ] || { why="ACCEL_CONFIG $ac, want range bits $2"; return 1; }
    [ $((div)) = $(($3)) ] || { why="SMPLRT_DIV $div, want $3"; return 1; }
    dlpf=$((cfg & 7)); [ $dlpf -ge 1 ] && [ $dlpf -le 6 ] || { why="CONFIG $cfg: DLPF off"; return 1; }
    [ $((pwr & 0x40)) = 64 ] || { why="PWR_MGMT_1 $pwr: SLEEP not set after exit"; return 1; }
}
check "read mpu6050 ±4 g decodes big-endian samples" read_mpu mpu6050-4g.json "0.5,-0.5,1.0"
check "mpu6050 ±4 g registers: ACCEL_CONFIG 0x08, SMPLRT_DIV 9, DLPF on, asleep" mpu_registers mpu6050-4g.json 0x08 9
check "read mpu6050 ±8 g decodes big-endian samples" read_mpu mpu6050-8g.json "1.0,-1.0,2.0"
check "mpu6050 ±8 g registers: ACCEL_CONFIG 0x10, SMPLRT_DIV 19, DLPF on, asleep" mpu_registers mpu6050-8g.json 0x10 19

# read_adxl BOARD: full resolution keeps 256 LSB/g (3.9 mg) in every range.
read_adxl() {
    preload_adxl
    run_tb 30 read --board "$BOARDS/$1" --count 1 --json
    last_read_rc=$rc
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out)
    near "$accel" "1.0,-0.5,2.0" 0.02 || { why="accel [$accel], want [1.0,-0.5,2.0]"; return 1; }
    adxl_read_ok=1
}
adxl_registers() {
    [ "$last_read_rc" = 0 ] || { why="the read before exited $last_read_rc"; return 1; }
    fmt=$(reg 0x53 0x31) && bw=$(reg 0x53 0x2C) && pwr=$(reg 0x53 0x2D) \
        || { why=$(cat /tmp/reg.err); return 1; }
    [ $((fmt & 0x0B)) = $(($2)) ] || { why="DATA_FORMAT $fmt, want FULL_RES|range = $2"; return 1; }
    [ $((bw & 0x1F)) = $(($3)) ] || { why="BW_RATE $bw, want $3"; return 1; }
    [ $((pwr & 0x08)) = 0 ] || { why="POWER_CTL $pwr: still measuring after exit"; return 1; }
}
check "read adxl345 ±4 g decodes little-endian samples" read_adxl adxl345-4g.json
check "adxl345 ±4 g registers: DATA_FORMAT 0x09, BW_RATE 0x0A, standby" adxl_registers adxl345-4g.json 0x09 0x0A
check "read adxl345 ±16 g decodes little-endian samples" read_adxl adxl345-16g.json
check "adxl345 ±16 g registers: DATA_FORMAT 0x0B, BW_RATE 0x09, standby" adxl_registers adxl345-16g.json 0x0B 0x09

# The stub never self-clears DEVICE_RESET (PWR_MGMT_1 bit 7): a driver that polls it would hang.
reset_stuck() {
    preload_mpu
    $I2CSET -y $BUS 0x68 0x6B 0x80
    run_tb 20 read --board "$BOARDS/mpu6050-4g.json" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out)
    near "$accel" "0.5,-0.5,1.0" 0.002 || { why="accel [$accel], want [0.5,-0.5,1.0]"; return 1; }
}
check "mpu6050 read finishes with DEVICE_RESET stuck set (i2c-stub never clears it)" reset_stuck

smbus_only() {
    /usr/sbin/i2cdetect -F $BUS > /tmp/funcs 2>&1 || { why="i2cdetect -F failed"; return 1; }
    grep -q '^I2C  *no' /tmp/funcs || { why="adapter offers plain I2C; the fallback is not exercised"; return 1; }
    grep -q '^I2C Block Read  *yes' /tmp/funcs || { why="adapter has no I2C block read"; return 1; }
    [ "$mpu_read_ok" = 1 ] && [ "$adxl_read_ok" = 1 ] || { why="the reads above failed"; return 1; }
}
check "both drivers read through the SMBus-only adapter (no I2C_RDWR)" smbus_only

# ---------------------------------------------------------------------------------------------
# LIS3DH (staged above): read_lis3dh BOARD ACCEL(g)
read_lis3dh() {
    preload_lis3dh
    run_tb 30 read --board "$BOARDS/$1" --count 1 --json
    last_read_rc=$rc
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out)
    near "$accel" "$2" 0.001 || { why="accel [$accel], want [$2]"; return 1; }
}
# lis3dh_registers CTRL_REG1 CTRL_REG4: the block at 0xA0 as written, everything else cleared,
# and CTRL_REG1 (single byte at 0x20) in power-down after exit.
lis3dh_registers() {
    [ "$last_read_rc" = 0 ] || { why="the read before exited $last_read_rc"; return 1; }
    /usr/sbin/i2cget -y $BUS 0x18 0xA0 i 6 > /tmp/block 2>&1 || { why="i2cget block: $(cat /tmp/block)"; return 1; }
    want="$1 0x00 0x00 $2 0x00 0x00"
    [ "$(cat /tmp/block)" = "$want" ] || { why="CTRL_REG1…6 block $(cat /tmp/block), want $want"; return 1; }
    int1=$(reg 0x18 0x30) && temp=$(reg 0x18 0x1F) && ctrl1=$(reg 0x18 0x20) && fifo=$(reg 0x18 0x2E) \
        || { why=$(cat /tmp/reg.err); return 1; }
    [ $((int1)) = 0 ] || { why="INT1_CFG $int1, want 0"; return 1; }
    [ $((temp)) = 0 ] || { why="TEMP_CFG_REG $temp, want 0"; return 1; }
    [ $((fifo)) = 0 ] || { why="FIFO_CTRL_REG $fifo, want bypass"; return 1; }
    [ $((ctrl1)) = 7 ] || { why="CTRL_REG1 $ctrl1 after exit, want 0x07 (power-down)"; return 1; }
}
check "read lis3dh ±4 g decodes left-justified 12-bit samples from one block read at 0xA8" read_lis3dh lis3dh-4g.json "1.0,-0.5,2.0"
check "lis3dh ±4 g registers: CTRL_REG1…6 block 0x57 … 0x98 at 0xA0, interrupts and ADC off, powered down" \
    lis3dh_registers 0x57 0x98
check "read lis3dh ±16 g at 400 Hz: 12 mg per digit" read_lis3dh lis3dh-16g.json "6.0,-3.0,12.0"
check "lis3dh ±16 g registers: CTRL_REG1…6 block 0x77 … 0xb8 at 0xA0, powered down" lis3dh_registers 0x77 0xb8

lis3dh_wrong_id() {
    preload_lis3dh
    $I2CSET -y $BUS 0x18 0x0F 0x32              # an LIS331DLH's WHO_AM_I
    run_tb 30 read --board "$BOARDS/lis3dh-4g.json" --count 1 --json
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    grep -q 'found 0x32 at 0x18 on /dev/i2c-0, expected 0x33 (LIS3DH)' /tmp/err || { why="$(first_err)"; return 1; }
    preload_lis3dh
}
check "lis3dh with WHO_AM_I 0x32: exit 69 naming the ID found and the one expected" lis3dh_wrong_id

# ---------------------------------------------------------------------------------------------
# The Sense HAT's LSM9DS1 at 0x6a, and an ICM-20948 staged at 0x68 (where the MPU-6050 sits the
# rest of the time: the stub is a register file, so which chip answers is what was preloaded).
# Little-endian LSM9DS1 data: temperature 160 (35 °C), gyro 571 -1143 0 (17.5 m°/s/LSB at
# 500 °/s), accel 4096 -4096 8192 (0.122 mg/LSB at ±4 g).
preload_lsm9ds1() {
    $I2CSET -y $BUS 0x6a 0x0F 0x68              # WHO_AM_I
    $I2CSET -y $BUS 0x6a 0x22 0x04              # CTRL_REG8: IF_ADD_INC (power-on)
    $I2CSET -y $BUS 0x6a 0x10 0xC0              # CTRL_REG1_G: 952 Hz running; the driver must power it down
    $I2CSET -y $BUS 0x6a 0x15 0xA0 0x00 0x07 0x3B 0x02 0x89 0xFB 0x00 0x00 i
    $I2CSET -y $BUS 0x6a 0x28 0x00 0x10 0x00 0xF0 0x00 0x20 i
}
# The ICM-20948: WHO_AM_I 0xEA at 0x00, nothing at the MPU's 0x75, REG_BANK_SEL left at bank 2
# (0x20) as another program might leave it. i2c-stub ignores banks in I2C block transfers
# (drivers/i2c/i2c-stub.c), which the driver uses for bursts and read-back, so the stub stays
# one flat file here: bank 2's registers land on bank 0's addresses (GYRO_SMPLRT_DIV on 0x00),
# which is why every command starts from a fresh preload. Big-endian data: accel 4096 -4096
# 8192 (±4 g: 8192 LSB/g), gyro 655 -1310 0 (65.5 LSB per °/s), temperature 4674 (35 °C).
preload_icm20948() {
    $I2CSET -y $BUS 0x68 0x00 0xEA              # WHO_AM_I (bank 0)
    $I2CSET -y $BUS 0x68 0x75 0x00              # the MPU family's WHO_AM_I: reserved here
    $I2CSET -y $BUS 0x68 0x7F 0x20              # REG_BANK_SEL: bank 2
    $I2CSET -y $BUS 0x68 0x06 0x01              # PWR_MGMT_1 awake: the driver must put it to sleep
    $I2CSET -y $BUS 0x68 0x2D 0x10 0x00 0xF0 0x00 0x20 0x00 0x02 0x8F 0xFA 0xE2 0x00 0x00 0x12 0x42 i
}
# Back to the MPU-6050 at 0x68: the registers the ICM-20948 commands wrote cleared, then its preload.
restore_mpu() {
    $I2CSET -y $BUS 0x68 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 \
        0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 i
    $I2CSET -y $BUS 0x68 0x66 0x00 0x00 0x00 0x00 i
    $I2CSET -y $BUS 0x68 0x7F 0x00
    preload_mpu
}
preload_lsm9ds1

probe_sense_hat() {
    preload_lsm9ds1
    run_tb 30 probe --bus /dev/i2c-$BUS --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x6a"' /tmp/probe | grep '"chip":"lsm9ds1"' | grep -q '"chipID":"0x68"' \
        || { why="no LSM9DS1 at 0x6a in: $(head -c 400 /tmp/probe)"; return 1; }
    for a in 0x1c 0x1e 0x46 0x5c 0x5f; do
        grep "\"address\":\"$a\"" /tmp/probe | grep -q 'notaccessed' || { why="$a not named: $(head -c 600 /tmp/probe)"; return 1; }
    done
}
check "probe finds the LSM9DS1 at 0x6a and names 0x1c, 0x1e, 0x46, 0x5c, 0x5f without reading them" probe_sense_hat

read_lsm9ds1() {
    preload_lsm9ds1
    run_tb 30 read --board "$BOARDS/lsm9ds1-4g.json" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "0.4997,-0.4997,0.9994" 0.0002 || { why="accel [$accel]"; return 1; }
    near "$gyro" "9.9925,-20.0025,0" 0.001 || { why="gyro [$gyro]"; return 1; }
    near "$temp" "35.0" 0.01 || { why="tempC $temp"; return 1; }
    g1=$(reg 0x6a 0x10) && xl6=$(reg 0x6a 0x20) && c8=$(reg 0x6a 0x22) && c9=$(reg 0x6a 0x23) || { why=$(cat /tmp/reg.err); return 1; }
    [ "$g1" = 0x08 ] || { why="CTRL_REG1_G $g1, want 0x08 (500 °/s, powered down)"; return 1; }
    [ "$xl6" = 0x00 ] || { why="CTRL_REG6_XL $xl6, want 0x00 (powered down)"; return 1; }
    [ "$c8" = 0x44 ] || { why="CTRL_REG8 $c8, want 0x44 (BDU, IF_ADD_INC)"; return 1; }
    [ "$c9" = 0x00 ] || { why="CTRL_REG9 $c9, want 0x00 (FIFO off)"; return 1; }
}
check "read lsm9ds1 ±4 g: one 25-byte block from 0x15 decodes temperature, gyro and accel; powered down after" read_lsm9ds1

probe_icm20948() {
    preload_icm20948
    run_tb 30 probe --bus /dev/i2c-$BUS --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    tr -d ' ' < /tmp/out > /tmp/probe
    grep '"address":"0x68"' /tmp/probe | grep '"chip":"icm20948"' | grep -q '"chipID":"0xea"' \
        || { why="no ICM-20948 at 0x68 in: $(head -c 400 /tmp/probe)"; return 1; }
    sel=$(reg 0x68 0x7F) || { why=$(cat /tmp/reg.err); return 1; }
    [ "$sel" = 0x20 ] || { why="REG_BANK_SEL $sel after probe: probe wrote it"; return 1; }
}
check "probe tells the ICM-20948 at 0x68 from an MPU-6050 with reads only (REG_BANK_SEL untouched)" probe_icm20948

read_icm20948() {
    preload_icm20948
    run_tb 30 read --board "$BOARDS/icm20948-4g.json" --count 1 --json
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    accel=$(json_array accel /tmp/out); gyro=$(json_array gyro /tmp/out); temp=$(json_number tempC /tmp/out)
    near "$accel" "0.5,-0.5,1.0" 0.0002 || { why="accel [$accel]"; return 1; }
    near "$gyro" "10,-20,0" 0.001 || { why="gyro [$gyro]"; return 1; }
    near "$temp" "35.0" 0.01 || { why="tempC $temp"; return 1; }
    sel=$(reg 0x68 0x7F) && pwr=$(reg 0x68 0x06) && ac=$(reg 0x68 0x14) && div=$(reg 0x68 0x00) || { why=$(cat /tmp/reg.err); return 1; }
    [ "$sel" = 0x00 ] || { why="REG_BANK_SEL $sel after read, want bank 0"; return 1; }
    [ "$pwr" = 0x41 ] || { why="PWR_MGMT_1 $pwr, want 0x41 (asleep)"; return 1; }
    [ "$ac" = 0x23 ] || { why="ACCEL_CONFIG $ac, want 0x23 (±4 g, low-pass 4)"; return 1; }
    [ "$div" = 0x0a ] || { why="GYRO_SMPLRT_DIV $div, want 0x0a (1125/11 Hz)"; return 1; }
}
check "read icm20948 ±4 g: bank 0 selected first, bank 2 for rate and range, back in bank 0 and asleep after" read_icm20948

# The other commands on both stub boards: run, shake, calibrate (neutral pose: the stub's data
# never moves, so the six-face calibration is left to the simulator tests), serve and gamepad.
# new_chip_commands PRELOAD BOARD
new_chip_commands() {
    preload=$1; board="$BOARDS/$2"
    $preload; run_tb 60 run --board "$board" --duration 1 --json
    [ $rc = 0 ] || { why="run: exit $rc: $(first_err)"; return 1; }
    [ "$(wc -l < /tmp/out)" -ge 50 ] || { why="run: $(wc -l < /tmp/out) lines in 1 s"; return 1; }
    $preload; run_tb 60 shake --board "$board" --duration 1 --mute
    [ $rc = 0 ] || { why="shake: exit $rc: $(first_err)"; return 1; }
    rm -f /tmp/new-chip.json
    $preload; run_tb 90 calibrate --yes --board "$board" --profile /tmp/new-chip.json
    [ $rc = 0 ] || { why="calibrate: exit $rc: $(first_err)"; return 1; }
    grep -q '"neutral"' /tmp/new-chip.json || { why="calibrate saved no neutral pose"; return 1; }
    ip link set lo up 2>/dev/null
    $preload; run_tb 60 serve --board "$board" --port 0 --duration 1
    [ $rc = 0 ] || { why="serve: exit $rc: $(first_err)"; return 1; }
    grep -q '^http://127.0.0.1:' /tmp/out || { why="serve printed: $(head -c 200 /tmp/out)"; return 1; }
    $preload; run_tb 60 gamepad --board "$board" --duration 1
    [ $rc = 0 ] || { why="gamepad: exit $rc: $(first_err)"; return 1; }
}
check "lsm9ds1 on i2c-stub: run, shake, calibrate, serve and gamepad exit 0" new_chip_commands preload_lsm9ds1 lsm9ds1-4g.json
check "icm20948 on i2c-stub: run, shake, calibrate, serve and gamepad exit 0" new_chip_commands preload_icm20948 icm20948-4g.json
restore_mpu

# ---------------------------------------------------------------------------------------------
# Haptics: record every change of the simulated line with /proc/uptime (10 ms) while it plays.
haptics_timing() {
    "$TB" haptics --board "$BOARDS/mpu6050-4g.json" --pattern "200,200,200" > /tmp/out 2> /tmp/err &
    pid=$!
    prev=0; edges=""; spins=0
    while kill -0 $pid 2>/dev/null && [ $spins -lt 400000 ]; do
        read -r v < "$SIM/sim_gpio17/value"
        if [ "$v" != "$prev" ]; then
            read -r up _ < /proc/uptime
            edges="$edges $v@$up"; prev=$v
        fi
        spins=$((spins + 1))
    done
    kill $pid 2>/dev/null
    wait $pid; rc=$?
    [ $rc = 0 ] || { why="exit $rc: $(first_err)"; return 1; }
    echo "guest: haptics edges:$edges"
    # Expected: on 200 ms, off 200 ms, on 200 ms; ±80 ms for TCG scheduling and 10 ms clock steps.
    echo "$edges" | awk '{
        if (NF != 4) { print "want 4 edges, got " NF; exit 1 }
        want = "1 0 1 0"; split(want, w, " ")
        for (i = 1; i <= 4; i++) { split($i, p, "@"); v[i] = p[1]; t[i] = p[2] }
        for (i = 1; i <= 4; i++) if (v[i] != w[i]) { print "edge " i " went to " v[i]; exit 1 }
        for (i = 1; i <= 3; i++) {
            ms = (t[i + 1] - t[i]) * 1000
            if (ms < 120 || ms > 280) { print "segment " i " lasted " ms " ms, want 200"; exit 1 }
        }
        exit 0 }' > /tmp/why || { why=$(cat /tmp/why); return 1; }
    haptics_ok=1
}
check "haptics --pattern 200,200,200 drives GPIO17 on/off/on for 200 ms each" haptics_timing

# released_low FLAG: FLAG is 1 when the command before really held the line.
released_low() {
    [ "$1" = 1 ] || { why="the command before did not run"; return 1; }
    [ "$(motor_value)" = 0 ] || { why="line still high"; return 1; }
    line17_info | grep -q unused || { why="still requested: $(line17_info)"; return 1; }
}
check "after haptics GPIO17 is low and released" released_low "$haptics_ok"

# Shake the MPU-6050 (x alternating ±2 g every ~80 ms) while a command watches it: `run` (the
# controller loop) and `shake` (the detector alone) both play the shake effect on the motor.
# watch_shake CMD: starts `tiltboard CMD --board … --json` and shakes once the driver is awake.
watch_shake() {
    cmd=$1; watch_ok=0
    preload_mpu
    $I2CSET -y $BUS 0x68 0x6B 0x40                                 # asleep until the driver starts
    $I2CSET -y $BUS 0x68 0x3B 0x00 0x00 0x00 0x00 0x20 0x00 i    # at rest: 1 g on z (±4 g range)
    "$TB" $cmd --board "$BOARDS/mpu6050-4g.json" --json > /tmp/run.out 2> /tmp/run.err &
    runpid=$!
    i=0
    while [ $i -lt 100 ] && kill -0 $runpid 2>/dev/null; do
        pwr=$(reg 0x68 0x6B) && [ $((pwr & 0x40)) = 0 ] && break
        usleep 100000; i=$((i + 1))
    done
    usleep 500000    # let the detector settle on gravity
    kill -0 $runpid 2>/dev/null || { why="$cmd exited early: $(head -n 1 /tmp/run.err)"; return 1; }
    motor_on=0; i=0
    while [ $i -lt 160 ]; do               # ~3 s; a write every 4th round
        if [ $((i % 4)) = 0 ]; then
            if [ $((i % 8)) = 0 ]; then hi=0x40; else hi=0xC0; fi    # +2 g / -2 g high byte
            $I2CSET -y $BUS 0x68 0x3B $hi
        fi
        read -r v < "$SIM/sim_gpio17/value"; [ "$v" = 1 ] && motor_on=1
        usleep 20000
        i=$((i + 1))
    done
    $I2CSET -y $BUS 0x68 0x3B 0x00
    i=0
    while [ $motor_on = 0 ] && [ $i -lt 50 ]; do
        read -r v < "$SIM/sim_gpio17/value"; [ "$v" = 1 ] && motor_on=1; usleep 20000; i=$((i + 1))
    done
    [ $motor_on = 1 ] || { why="motor never on; $cmd said: $(head -c 200 /tmp/run.err)"; return 1; }
    watch_ok=1
}
# Once the board is still again the motor must go off and stay off (no stuck effect).
watch_quiet() {
    [ "$watch_ok" = 1 ] || { why="the shake check before did not pass"; return 1; }
    i=0; quiet=0
    while [ $i -lt 100 ] && [ $quiet -lt 20 ]; do    # up to 5 s for 1 s of silence
        read -r v < "$SIM/sim_gpio17/value"
        if [ "$v" = 0 ]; then quiet=$((quiet + 1)); else quiet=0; fi
        usleep 50000; i=$((i + 1))
    done
    [ $quiet -ge 20 ] || { why="motor still switching 5 s after the shaking stopped"; return 1; }
    kill -0 $runpid 2>/dev/null || { why="exited on its own: $(head -n 1 /tmp/run.err)"; return 1; }
}
# SIGTERM: the line must end low and released, the sensor asleep.
stop_watch() {
    [ -n "$runpid" ] || { why="not started"; return 1; }
    ran=0; kill -0 $runpid 2>/dev/null && ran=1
    kill -TERM $runpid 2>/dev/null
    i=0
    while kill -0 $runpid 2>/dev/null && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
    kill -0 $runpid 2>/dev/null && { kill -KILL $runpid; why="still running 10 s after SIGTERM"; return 1; }
    wait $runpid; rc=$?
    echo "guest: $cmd exited with $rc after SIGTERM"
    runpid=""
    released_low $ran || return 1
    pwr=$(reg 0x68 0x6B) || { why=$(cat /tmp/reg.err); return 1; }
    [ $((pwr & 0x40)) = 64 ] || { why="PWR_MGMT_1 $pwr: MPU-6050 not put to sleep"; return 1; }
}
for cmd in run shake; do
    runpid=""
    check "$cmd --json turns the motor on while the board is shaken" watch_shake $cmd
    check "$cmd keeps the motor off once the board is still" watch_quiet
    check "after SIGTERM to $cmd GPIO17 is low and released, the sensor asleep" stop_watch
done

# ---------------------------------------------------------------------------------------------
# Wake on motion on the real line: `shake --wake-on-motion` sleeps on GPIO4 (poll(2) on the
# line's edge descriptor and the loop's eventfd, no timeout), a rising edge with MOT_INT (0x40)
# in INT_STATUS wakes it, and SIGTERM ends the next sleep through the eventfd.
# wait_text FILE TEXT COUNT: up to 10 s for COUNT lines of FILE containing TEXT.
wait_text() {
    i=0
    while [ "$(grep -c "$2" "$1")" -lt "$3" ] && [ $i -lt 100 ]; do usleep 100000; i=$((i + 1)); done
    [ "$(grep -c "$2" "$1")" -ge "$3" ]
}
wake_on_gpio() {
    preload_mpu
    echo pull-down > "$SIM/sim_gpio4/pull"
    "$TB" shake --mute --wake-on-motion --idle 0.5 --board "$BOARDS/mpu6050-wake.json" > /tmp/wake.out 2> /tmp/wake.err &
    wakepid=$!
    wait_text /tmp/wake.err "until motion" 1 || { kill -KILL $wakepid; why="never slept: $(head -c 300 /tmp/wake.err)"; return 1; }
    $I2CSET -y $BUS 0x68 0x3A 0x41                      # INT_STATUS: MOT_INT | data ready
    echo pull-up > "$SIM/sim_gpio4/pull"
    wait_text /tmp/wake.err "woke on motion" 1 || { kill -KILL $wakepid; why="no wake on the edge: $(head -c 300 /tmp/wake.err)"; return 1; }
    $I2CSET -y $BUS 0x68 0x3A 0x01
    echo pull-down > "$SIM/sim_gpio4/pull"
    wait_text /tmp/wake.err "until motion" 2 || { kill -KILL $wakepid; why="never slept again: $(head -c 300 /tmp/wake.err)"; return 1; }
    read -r w0 _ < /proc/uptime
    kill -TERM $wakepid
    i=0
    while kill -0 $wakepid 2>/dev/null && [ $i -lt 100 ]; do usleep 20000; i=$((i + 1)); done
    kill -0 $wakepid 2>/dev/null && { kill -KILL $wakepid; why="still asleep 2 s after SIGTERM"; return 1; }
    read -r w1 _ < /proc/uptime
    wait $wakepid; rc=$?
    echo "guest: shake --wake-on-motion exited with $rc $(awk -v a=$w0 -v b=$w1 'BEGIN { printf "%.2f", b - a }') s after SIGTERM"
    [ $rc = 0 ] || { why="exit $rc: $(head -c 300 /tmp/wake.err)"; return 1; }
    grep -q "wake on motion: 2 sleeps, 1 wakeup, " /tmp/wake.err || { why="$(grep 'wake on motion:' /tmp/wake.err)"; return 1; }
}
check "shake --wake-on-motion sleeps on GPIO4, wakes on its edge, and SIGTERM ends the sleep at once" wake_on_gpio

# ---------------------------------------------------------------------------------------------
# Brown-out: while `run` reads the MPU-6050, its registers go back to their power-on values
# (configuration 0, PWR_MGMT_1 0x40: asleep), as a dip in the supply leaves a real chip. The stub
# raises no bus error and keeps the data registers, so only reading the chip's state shows it.
# wait_for SECONDS COMMAND…: polls COMMAND every 0.1 s until it succeeds (0) or time runs out (1).
wait_for() {
    n=$(($1 * 10)); shift
    while [ $n -gt 0 ]; do "$@" && return 0; usleep 100000; n=$((n - 1)); done
    return 1
}
configured() { pwr=$(reg 0x68 0x6B) && [ "$pwr" = 0x01 ]; }
lines_over() { [ "$(wc -l < /tmp/bo.out)" -gt "$1" ]; }
brownout() {
    brown_ok=0; bopid=""
    preload_mpu
    $I2CSET -y $BUS 0x68 0x6B 0x40
    "$TB" run --board "$BOARDS/mpu6050-4g.json" --json > /tmp/bo.out 2> /tmp/bo.err &
    bopid=$!
    wait_for 10 configured || { why="never configured: PWR_MGMT_1 $pwr; $(head -n 1 /tmp/bo.err)"; return 1; }
    wait_for 10 lines_over 20 || { why="no samples: $(head -n 1 /tmp/bo.err)"; return 1; }
    for r in 0x19 0x1A 0x1B 0x1C 0x23 0x6A; do $I2CSET -y $BUS 0x68 $r 0x00; done
    $I2CSET -y $BUS 0x68 0x6B 0x40
    read -r t0 _ < /proc/uptime
    wait_for 10 grep -q 'sensor back at .* (reconfigured)' /tmp/bo.err \
        || { why="no reconfiguration within 10 s: $(grep -m 1 'sensor\|error' /tmp/bo.err)"; return 1; }
    read -r t1 _ < /proc/uptime
    echo "guest: brown-out at $t0 s, reconfigured by $t1 s"
    grep 'sensor lost\|sensor back' /tmp/bo.err | cut -c 1-160 | sed 's/^/guest: /'
    grep -q 'sensor lost at .*reads 0x40, not the configured 0x01' /tmp/bo.err || { why="no loss noted: $(head -c 300 /tmp/bo.err)"; return 1; }
    brown_ok=1
}
# The registers hold the driver's configuration again (±4 g, 100 Hz, DLPF on, PLL-X awake) and
# the loop keeps reading.
brownout_recovered() {
    [ "$brown_ok" = 1 ] || { why="the brown-out check before did not pass"; return 1; }
    ac=$(reg 0x68 0x1C) && div=$(reg 0x68 0x19) && cfg=$(reg 0x68 0x1A) && gy=$(reg 0x68 0x1B) && pwr=$(reg 0x68 0x6B) \
        || { why=$(cat /tmp/reg.err); return 1; }
    [ $((ac & 0x18)) = 8 ] && [ $((div)) = 9 ] && [ $((gy & 0x18)) = 8 ] && [ "$pwr" = 0x01 ] \
        || { why="ACCEL_CONFIG $ac SMPLRT_DIV $div GYRO_CONFIG $gy PWR_MGMT_1 $pwr"; return 1; }
    dlpf=$((cfg & 7)); [ $dlpf -ge 1 ] && [ $dlpf -le 6 ] || { why="CONFIG $cfg: DLPF off"; return 1; }
    n=$(wc -l < /tmp/bo.out)
    wait_for 5 lines_over $((n + 50)) || { why="output stopped at $(wc -l < /tmp/bo.out) lines"; return 1; }
    kill -0 $bopid 2>/dev/null || { why="run exited: $(tail -n 1 /tmp/bo.err)"; return 1; }
}
stop_brownout() {
    [ -n "$bopid" ] || { why="not started"; return 1; }
    kill -TERM $bopid 2>/dev/null
    wait_for 10 eval '! kill -0 $bopid 2>/dev/null' || { kill -KILL $bopid; why="still running 10 s after SIGTERM"; return 1; }
    wait $bopid; rc=$?
    [ $rc = 0 ] || { why="exit $rc: $(tail -n 1 /tmp/bo.err)"; return 1; }
    grep -q -E 'bus errors 0, outages 1, reconfigurations 1($|;)' /tmp/bo.err || { why="totals: $(grep 'loop:' /tmp/bo.err)"; return 1; }
}
check "run notices a brown-out (PWR_MGMT_1 back at 0x40, no bus error) and reconfigures the chip" brownout
check "after the brown-out the registers hold the driver's configuration and samples keep coming" brownout_recovered
check "run stops cleanly after the brown-out, counting 1 outage and 1 reconfiguration" stop_brownout

# ---------------------------------------------------------------------------------------------
# Gamepad: `tiltboard gamepad` on the simulated demo board (left, right, forward, back, shake)
# through the real uinput, and a client reading /dev/input/event* that plays two rumbles.
gamepad_run() {
    rm -f /tmp/gamepad-motor.log
    "$TB" gamepad --board "$BOARDS/simulated-gamepad.json" --duration 13 > /tmp/gp.out 2> /tmp/gp.err &
    gp=$!
    timeout 60 gamepad-client Tiltboard 40 > /tmp/gpc.out 2>&1
    wait $gp; gprc=$?
    sed 's/^/guest: gamepad-client: /' /tmp/gpc.out
    sed 's/^/guest: motor log: /' /tmp/gamepad-motor.log 2>/dev/null
    [ $gprc = 0 ] || { why="exit $gprc: $(grep -m 1 error /tmp/gp.err)"; return 1; }
    grep -qx "range -32767 32767 -32767 32767" /tmp/gpc.out || { why="$(head -n 1 /tmp/gpc.out)"; return 1; }
    grep -qx "ff 1 16" /tmp/gpc.out || { why="force feedback: $(grep '^ff' /tmp/gpc.out), want 16 slots"; return 1; }
    grep -qx "order left right forward back" /tmp/gpc.out || { why="$(grep order /tmp/gpc.out)"; return 1; }
}
check "gamepad: a client sees the stick go left, right, forward (−Y), back (+Y) over −32767…32767" gamepad_run
gamepad_button() { grep -q "^button [1-9]" /tmp/gpc.out || { why="$(grep button /tmp/gpc.out)"; return 1; }; }
check "gamepad: the demo's shake presses BTN_SOUTH" gamepad_button
# rumble_on MS WANT: the motor went on after the client's MS rumble, for WANT s (±80 ms, TCG), and
# no stretch while the effect lasted was longer (the cap rests the motor, then the effect goes on).
rumble_on() {
    at=$(awk -v ms="$1" '$1 == "rumble" && $2 == ms { print $3 }' /tmp/gpc.out)
    [ -n "$at" ] || { why="the client played no $1 ms rumble"; return 1; }
    awk -v at="$at" -v want="$2" '
        $2 == 1 && $1 >= at && on == "" { on = $1 }
        $2 == 0 && on != "" && off == "" { off = $1 }
        $2 == 1 && off != "" && $1 < at + ms / 1000 + 0.1 { since = $1 }
        $2 == 0 && since != "" { if ($1 - since > longest) longest = $1 - since; since = "" }
        END {
            if (on == "" || off == "") { print "why no on/off pair after the play"; exit 1 }
            printf "guest: %s ms rumble: motor on %.1f ms after the play, for %.0f ms\n", ms, (on - at) * 1000, (off - on) * 1000
            if (off - on < want - 0.08 || off - on > want + 0.08) { printf "why on for %.3f s, want %s s\n", off - on, want; exit 1 }
            if (on - at > 0.1) { printf "why motor on %.3f s after the play\n", on - at; exit 1 }
            if (longest > want + 0.08) { printf "why a later stretch lasted %.3f s\n", longest; exit 1 } }' ms="$1" /tmp/gamepad-motor.log > /tmp/rumble.txt
    ok=$?
    grep '^guest: ' /tmp/rumble.txt
    [ $ok = 0 ] || { why=$(sed -n 's/^why //p' /tmp/rumble.txt); return 1; }
}
check "gamepad: a 300 ms FF_RUMBLE turns the motor on for 300 ms" rumble_on 300 0.3
check "gamepad: a 2 s FF_RUMBLE never runs the motor past motor.maxOnMs (500 ms) at a stretch" rumble_on 2000 0.5
gamepad_gone() {
    tail -n 1 /tmp/gamepad-motor.log | grep -q ' 0$' || { why="motor log ends: $(tail -n 1 /tmp/gamepad-motor.log)"; return 1; }
    grep -qx gone /tmp/gpc.out || { why="the client's device stayed"; return 1; }
    ! grep -qx Tiltboard /sys/class/input/*/name 2>/dev/null || { why="a Tiltboard input device remains"; return 1; }
}
# Request → motor on for each of the client's twenty 50 ms rumbles (docs/commands.md's gamepad latency figure).
rumble_latency() {
    awk '$1 == "rumble" && $2 == 50 { print $3 }' /tmp/gpc.out > /tmp/plays
    awk 'NR == FNR { at[++n] = $1; next }
         $2 == 1 { for (i = 1; i <= n; i++) if (on[i] == "" && $1 >= at[i] && (i == n || $1 < at[i + 1])) on[i] = $1 }
         END {
             if (n != 20) { print "why " n " plays of 50 ms, want 20"; exit 1 }
             for (i = 1; i <= n; i++) { if (on[i] == "") { print "why play " i " never turned the motor on"; exit 1 }; d[i] = (on[i] - at[i]) * 1000 }
             for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (d[j] < d[i]) { x = d[i]; d[i] = d[j]; d[j] = x }
             printf "guest: rumble request → motor on, 20 plays: min %.1f, median %.1f, max %.1f ms\n", d[1], (d[10] + d[11]) / 2, d[20]
             if (d[20] > 100) { print "why a play took over 100 ms to reach the motor"; exit 1 } }' /tmp/plays /tmp/gamepad-motor.log > /tmp/latency.txt
    ok=$?
    grep '^guest: ' /tmp/latency.txt
    [ $ok = 0 ] || { why=$(sed -n 's/^why //p' /tmp/latency.txt); return 1; }
}
check "gamepad: each of 20 rumble requests turns the motor on within 100 ms" rumble_latency
check "gamepad: after exit the device is gone and the motor off" gamepad_gone
# A board without a motor: the pad has no EV_FF at all, so a game sees no rumble to offer, and an
# upload is refused by the kernel rather than accepted and never felt.
gamepad_no_motor() {
    "$TB" gamepad --board "$BOARDS/simulated-gamepad-no-motor.json" --name "Tiltboard no motor" --duration 5 > /tmp/gpn.out 2> /tmp/gpn.err &
    gp=$!
    # The client tries a rumble a second after it opens the pad and ends when the pad goes.
    timeout 60 gamepad-client "Tiltboard no motor" 30 > /tmp/gpnc.out 2>&1
    wait $gp; gprc=$?
    sed 's/^/guest: gamepad-client: /' /tmp/gpnc.out
    [ $gprc = 0 ] || { why="exit $gprc: $(grep -m 1 error /tmp/gpn.err)"; return 1; }
    grep -qx "ff 0 0" /tmp/gpnc.out || { why="force feedback: $(grep '^ff' /tmp/gpnc.out), want none"; return 1; }
    grep -q "^upload failed" /tmp/gpnc.out || { why="a rumble upload was accepted"; return 1; }
    grep -q "the board has no motor: the gamepad offers no rumble" /tmp/gpn.err || { why="$(cat /tmp/gpn.err | head -n 3)"; return 1; }
}
check "gamepad: without a motor the pad offers no force feedback (no EV_FF) and refuses a rumble" gamepad_no_motor

# ---------------------------------------------------------------------------------------------
# Error paths.
absent_device() {
    run_tb 30 read --board "$BOARDS/absent-0x69.json" --count 1 --json
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    grep -q "no device answers" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "no chip at 0x69: exit 69, \"no device answers\"" absent_device

echo 'tester:x:1000:1000:HIL tester:/tmp:/bin/sh' >> /etc/passwd
printf 'root:x:0:\ni2c:x:998:\ngpio:x:997:\ntester:x:1000:\n' > /etc/group
as_tester() { # SECONDS ARGS...: tiltboard as an unprivileged user without the i2c/gpio groups
    secs=$1; shift
    read -r a _ < /proc/uptime
    timeout "$secs" su -s /bin/sh tester -c "$TB $*" > /tmp/out 2> /tmp/err
    rc=$?
    read -r b _ < /proc/uptime
    echo "guest: su tester took $a → $b s"
}
i2c_permission() {
    chmod 0600 /dev/i2c-$BUS
    as_tester 30 read --board "$BOARDS/mpu6050-4g.json" --count 1 --json
    chmod 0666 /dev/i2c-$BUS
    [ $rc = 77 ] || { why="exit $rc, want 77: $(first_err)"; return 1; }
    grep -q "udev" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "I²C without permission: exit 77, message names the udev rule" i2c_permission

gpio_permission() {
    chmod 0600 "$CHIPDEV"
    as_tester 30 haptics --board "$BOARDS/mpu6050-4g.json" --pattern 100
    chmod 0666 "$CHIPDEV"
    [ $rc = 77 ] || { why="exit $rc, want 77: $(first_err)"; return 1; }
    grep -q "udev" /tmp/err && grep -q "usermod -aG gpio" /tmp/err || { why="message: $(first_err)"; return 1; }
}
check "GPIO without permission: exit 77, message names the udev rule and gpio group" gpio_permission

# hold_line17: gpioset holds GPIO17 (pid $gpid) until killed.
hold_line17() {
    gpioset --mode=signal pinctrl-bcm2711 17=0 &
    gpid=$!
    i=0
    until line17_info | grep -q '"gpioset"'; do
        i=$((i + 1)); [ $i -lt 50 ] || { kill $gpid; why="gpioset never took the line"; return 1; }
        usleep 100000
    done
}
motor_busy() {
    hold_line17 || return 1
    run_tb 30 haptics --board "$BOARDS/mpu6050-4g.json" --pattern 100
    kill $gpid; wait $gpid
    [ $rc != 0 ] || { why="haptics succeeded on a busy line"; return 1; }
    grep -q "gpioset" /tmp/err || { why="exit $rc: $(first_err)"; return 1; }
}
check "motor line held by gpioset: haptics fails naming gpioset" motor_busy

# ---------------------------------------------------------------------------------------------
# doctor, all well and with each failure staged (i2c-stub has no device tree: no bus-clock line).
# doctor_says WANT-EXIT PATTERN BOARD [tester]
doctor_says() {
    if [ "${4:-}" = tester ]; then as_tester 30 doctor --board "$BOARDS/$3"; else run_tb 30 doctor --board "$BOARDS/$3"; fi
    sed 's/^/guest: doctor: /' /tmp/out
    [ $rc = "$1" ] || { why="exit $rc, want $1: $(grep -m 1 '^✗' /tmp/out || first_err)"; return 1; }
    grep -q "$2" /tmp/out || { why="no line like '$2': $(grep -m 1 '^✗' /tmp/out)"; return 1; }
}
preload_mpu
check "doctor, all well: exit 0" doctor_says 0 '^✓ sensor: MPU-6050 at 0x68 on /dev/i2c-0 (ID 0x68)$' mpu6050-4g.json
doctor_no_i2c_dev() {
    rmmod i2c_dev || { why="rmmod i2c_dev failed"; return 1; }
    doctor_says 69 '^✗ I²C enabled: adapter i2c-0 exists but /dev/i2c-0 does not: the i2c-dev module is not loaded' mpu6050-4g.json; r=$?
    insmod "$(grep '/i2c-dev.ko' /etc/hil-modules | cut -d' ' -f1)"
    i=0; while [ ! -e /dev/i2c-$BUS ] && [ $i -lt 50 ]; do usleep 100000; i=$((i + 1)); done
    return $r
}
check "doctor without i2c-dev: exit 69, fix: modprobe i2c-dev" doctor_no_i2c_dev
doctor_no_group() {
    mkdir -p /etc/udev/rules.d && : > /etc/udev/rules.d/60-tiltboard.rules
    chgrp 998 /dev/i2c-$BUS && chmod 0660 /dev/i2c-$BUS
    doctor_says 77 '^✗ I²C permission: .*fix: join the i2c group' mpu6050-4g.json tester; r=$?
    chgrp 0 /dev/i2c-$BUS && chmod 0666 /dev/i2c-$BUS
    return $r
}
check "doctor as a user outside the i2c group: exit 77, fix: join the i2c group" doctor_no_group
check "doctor, nothing at 0x69: exit 69" doctor_says 69 '^✗ sensor: nothing answers at 0x69 on /dev/i2c-0' absent-0x69.json
doctor_wrong_id() {
    $I2CSET -y $BUS 0x68 0x75 0x42
    doctor_says 69 '^✗ sensor: found 0x42 at 0x68 on /dev/i2c-0' mpu6050-4g.json; r=$?
    preload_mpu
    return $r
}
check "doctor, WHO_AM_I 0x42: exit 69 naming 0x42" doctor_wrong_id
doctor_motor_held() {
    hold_line17 || return 1
    doctor_says 69 '^✗ motor line: GPIO pinctrl-bcm2711 line 17 (GPIO17) is in use by "gpioset"' mpu6050-4g.json; r=$?
    kill $gpid; wait $gpid
    return $r
}
check "doctor, GPIO17 held by gpioset: exit 69 naming gpioset" doctor_motor_held

# ---------------------------------------------------------------------------------------------
# A kernel driver owning the sensor: the kernel's st_accel_i2c bound to the LIS3DH at 0x18 with
# new_device, as dtoverlay=… binds an IIO driver on a Pi. i2c-dev then refuses SMBus transfers to
# 0x18 (EBUSY) but would let I2C_RDWR through: tiltboard must refuse the sensor, naming the
# driver and the fix, before it configures the chip behind the driver's back.
ADAPTER=/sys/bus/i2c/devices/i2c-$BUS
KDEV=/sys/bus/i2c/devices/$BUS-0018
kdriver_line="the kernel's st-accel-i2c driver owns the device at 0x18 on /dev/i2c-$BUS"
kdriver_fix="echo $BUS-0018 | sudo tee /sys/bus/i2c/drivers/st-accel-i2c/unbind"
kdriver_bound=0
kdriver_bind() {
    preload_lis3dh
    # st_sensors reads through regmap with the auto-increment bit set in the sub-address (0x80,
    # drivers/iio/common/st_sensors/st_sensors_i2c.c), so WHO_AM_I is asked at 0x8F on the stub.
    $I2CSET -y $BUS 0x18 0x8F 0x33
    echo lis3dh 0x18 > $ADAPTER/new_device || { why="new_device refused"; return 1; }
    wait_for 5 [ -L $KDEV/driver ] || { why="no driver bound to $KDEV: $(dmesg | tail -n 3 | tr '\n' ' ')"; return 1; }
    drv=$(basename "$(readlink $KDEV/driver)")
    [ "$drv" = st-accel-i2c ] || { why="driver $drv, want st-accel-i2c"; return 1; }
    # The premise: the SMBus path (I2C_SLAVE without force) is refused while the driver holds it.
    $I2CGET -y $BUS 0x18 0x0F > /tmp/busy 2>&1 && { why="i2cget at 0x18 succeeded: $(cat /tmp/busy)"; return 1; }
    grep -q 'busy' /tmp/busy || { why="i2cget: $(cat /tmp/busy)"; return 1; }
    kdriver_bound=1
}
# kdriver_refused ARGS…: tiltboard ARGS exits 69 with exactly one stderr line naming the driver
# and both fixes.
kdriver_refused() {
    [ "$kdriver_bound" = 1 ] || { why="the driver was not bound"; return 1; }
    run_tb 30 "$@"
    [ $rc = 69 ] || { why="exit $rc, want 69: $(first_err)"; return 1; }
    [ "$(wc -l < /tmp/err)" = 1 ] || { why="$(wc -l < /tmp/err) stderr lines: $(head -c 300 /tmp/err)"; return 1; }
    grep -qF "tiltboard: error: $kdriver_line: remove the dtoverlay line that adds it from /boot/firmware/config.txt and reboot, or release it until the next boot with \`$kdriver_fix\`" /tmp/err \
        || { why="$(first_err)"; return 1; }
}
kdriver_probe() {
    kdriver_refused probe --bus /dev/i2c-$BUS || return 1
    # The free addresses are still probed and listed.
    grep -q '^0x68  MPU-6050' /tmp/out && grep -q '^0x53  ADXL345' /tmp/out || { why="stdout: $(head -c 200 /tmp/out)"; return 1; }
    ! grep -q '^0x18' /tmp/out || { why="0x18 was probed behind the driver"; return 1; }
}
kdriver_doctor() {
    [ "$kdriver_bound" = 1 ] || { why="the driver was not bound"; return 1; }
    doctor_says 69 "^✗ kernel driver: st-accel-i2c owns 0x18 on /dev/i2c-$BUS — fix: .*$kdriver_fix" lis3dh-4g.json || return 1
    ! grep -q ' sensor: ' /tmp/out || { why="the doctor asked the sensor: $(grep ' sensor: ' /tmp/out)"; return 1; }
}
# The fix the message gives, as given (without sudo: the guest runs as root): the device stays
# declared, unbound, and the sensor works again.
kdriver_unbind_fix() {
    [ "$kdriver_bound" = 1 ] || { why="the driver was not bound"; return 1; }
    echo $BUS-0018 > /sys/bus/i2c/drivers/st-accel-i2c/unbind || { why="unbind refused"; return 1; }
    [ -d $KDEV ] && [ ! -e $KDEV/driver ] || { why="$KDEV: $(ls $KDEV 2>&1 | tr '\n' ' ')"; return 1; }
    read_lis3dh lis3dh-4g.json "1.0,-0.5,2.0"
}
kdriver_deleted() {
    echo 0x18 > $ADAPTER/delete_device || { why="delete_device refused"; return 1; }
    [ ! -e $KDEV ] || { why="$KDEV still there"; return 1; }
    read_lis3dh lis3dh-4g.json "1.0,-0.5,2.0" || return 1
    run_tb 30 probe --bus /dev/i2c-$BUS --json
    [ $rc = 0 ] && grep -q '"address":"0x18"' /tmp/out || { why="probe exit $rc: $(first_err)"; return 1; }
}
check "st_accel_i2c binds the LIS3DH at 0x18 (new_device); i2c-dev then refuses SMBus to it (busy)" kdriver_bind
check "kernel driver: read exits 69 with one line naming st-accel-i2c, 0x18, /dev/i2c-$BUS and the fix" \
    kdriver_refused read --board "$BOARDS/lis3dh-4g.json" --count 1 --json
check "kernel driver: run exits 69 with the same line" kdriver_refused run --board "$BOARDS/lis3dh-4g.json" --duration 1
check "kernel driver: probe lists 0x68 and 0x53, leaves 0x18 alone and exits 69 with the same line" kdriver_probe
check "kernel driver: doctor exits 69 naming st-accel-i2c and the unbind fix, without asking the sensor" kdriver_doctor
check "kernel driver: the unbind the message gives frees the sensor (read decodes again)" kdriver_unbind_fix
check "kernel driver: after delete_device the sensor reads and probes as before" kdriver_deleted

# ---------------------------------------------------------------------------------------------
# The same bus- and GPIO-facing checks with the build against libgpiod 2.x (Debian 13's Swift,
# libgpiod.so.3 and glibc), run through its own loader: this guest's userland has libgpiod 1.6.
if [ -n "$GPIOD2" ]; then
    D=/mnt/$GPIOD2
    printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s %s/tiltboard "$@"\n' "$D" "$D" "$D" > /usr/bin/tiltboard-gpiod2
    chmod 755 /usr/bin/tiltboard-gpiod2
    TB=/usr/bin/tiltboard-gpiod2
    g2=" [libgpiod 2.x build]"
    # The binary resolves libgpiod.so.3 (and its glibc) from its own folder, not the guest's 1.6.
    gpiod2_linked() {
        "$D/ld-linux-x86-64.so.2" --list --library-path "$D" "$D/tiltboard" > /tmp/ldd 2>&1 || { why="$(head -n 1 /tmp/ldd)"; return 1; }
        grep -q "libgpiod.so.3 => $D/libgpiod.so.3" /tmp/ldd || { why="$(grep -m 1 gpiod /tmp/ldd)"; return 1; }
        ! grep -q 'libgpiod.so.2' /tmp/ldd || { why="also links libgpiod.so.2"; return 1; }
    }
    check "the libgpiod 2.x build loads libgpiod.so.3 from its own folder" gpiod2_linked
    check "probe --json finds MPU-6050 at 0x68, ADXL345 at 0x53 and LIS3DH at 0x18$g2" probe_finds_both
    check "read mpu6050 ±8 g decodes big-endian samples$g2" read_mpu mpu6050-8g.json "1.0,-1.0,2.0"
    check "mpu6050 ±8 g registers: ACCEL_CONFIG 0x10, SMPLRT_DIV 19, DLPF on, asleep$g2" mpu_registers mpu6050-8g.json 0x10 19
    haptics_ok=0
    check "haptics --pattern 200,200,200 drives GPIO17 on/off/on for 200 ms each$g2" haptics_timing
    check "after haptics GPIO17 is low and released$g2" released_low "$haptics_ok"
    check "GPIO without permission: exit 77, message names the udev rule and gpio group$g2" gpio_permission
    check "motor line held by gpioset: haptics fails naming gpioset$g2" motor_busy
fi

# ---------------------------------------------------------------------------------------------
# Two players on one bus: i2c-stub loaded again with two MPU-6050s, at 0x68 and 0x69 (AD0 low and
# high: the MPU-6000/6050 product specification PS-MPU-6000A-00, §9.2), motors on GPIO17 and
# GPIO27, `gamepad` with one --board per player, and a game's side through SDL2 (Debian's
# libSDL2, `sdl-pads`). Last, as 0x69 (the "nothing answers" board above) answers from here on.
TB=$TB_MAIN
PLAYERS="--board $BOARDS/player1-0x68.json --board $BOARDS/player2-0x69.json"
# At rest: 1 g on z at ±4 g (8192 LSB/g), 35 °C, no rotation; asleep until the driver starts it.
preload_player() {
    $I2CSET -y $BUS $1 0x75 0x68 && $I2CSET -y $BUS $1 0x3A 0x01 \
        && $I2CSET -y $BUS $1 0x3B 0x00 0x00 0x00 0x00 0x20 0x00 0xFD 0xF7 0x00 0x00 0x00 0x00 0x00 0x00 i \
        && $I2CSET -y $BUS $1 0x6B 0x40
}
# Tilted 30° about x (y 0.5 g = 0x1000, z 0.866 g = 0x1BB6): past --full-scale's 25°, full deflection.
tilt_player() { $I2CSET -y $BUS $1 0x3D 0x10 0x00 0x1B 0xB6 i; }
level_player() { $I2CSET -y $BUS $1 0x3D 0x00 0x00 0x20 0x00 i; }
two_sensors() {
    rmmod i2c_stub || { why="rmmod i2c_stub failed"; return 1; }
    insmod "$(grep '/i2c-stub.ko' /etc/hil-modules | cut -d' ' -f1)" chip_addr=0x68,0x69 || { why="insmod i2c-stub failed"; return 1; }
    wait_for 5 [ -e /dev/i2c-$BUS ] || { why="no /dev/i2c-$BUS after the reload"; return 1; }
    grep -q "SMBus stub" /sys/class/i2c-dev/i2c-$BUS/name || { why="i2c-$BUS is $(cat /sys/class/i2c-dev/i2c-$BUS/name)"; return 1; }
    preload_player 0x68 && preload_player 0x69 || { why="i2cset failed"; return 1; }
    for a in 0x68 0x69; do
        id=$(reg $a 0x75) || { why=$(cat /tmp/reg.err); return 1; }
        [ "$id" = 0x68 ] || { why="WHO_AM_I at $a is $id"; return 1; }
    done
    [ -e "$SIM/sim_gpio27/value" ] || { why="no $SIM/sim_gpio27/value"; return 1; }
    gpioinfo pinctrl-bcm2711 2>/dev/null | grep 'line  *27:' | grep -q '"GPIO27"' || { why="no line named GPIO27"; return 1; }
}
check "two players: i2c-stub with MPU-6050s at 0x68 and 0x69, motors GPIO17 and GPIO27 on gpio-sim" two_sensors

# sdl COMMAND PATTERN [SECONDS]: sends COMMAND to sdl-pads and waits (10 s unless told) for its
# next line matching PATTERN, left in $answer.
sdl() {
    before=$(grep -c "$2" /tmp/sdl.out)
    echo "$1" >&7
    n=$((${3:-10} * 10))
    while [ "$(grep -c "$2" /tmp/sdl.out)" -le "$before" ]; do
        n=$((n - 1)); [ $n -gt 0 ] || { answer=""; return 1; }
        usleep 100000
    done
    answer=$(grep "$2" /tmp/sdl.out | tail -n 1)
}
pad_exists() { grep -qx "$1" /sys/class/input/input*/name 2>/dev/null; }
both_pads() { pad_exists "Tiltboard 1" && pad_exists "Tiltboard 2"; }
pad_line() { grep "^pad $1 " /tmp/sdl.out; }
# The first error line of the two players' gamepad (stderr in /tmp/tp.err).
tp_err() { { grep -i -m 1 'error' /tmp/tp.err || head -n 1 /tmp/tp.err; } | cut -c 1-300; }
pads_ok=0; tppid=""; sdlpid=""
two_pads() {
    "$TB" gamepad --ignore-profile --give-up-after 60 $PLAYERS > /tmp/tp.out 2> /tmp/tp.err &
    tppid=$!
    wait_for 30 both_pads || { why="no two Tiltboard devices: $(tp_err)"; return 1; }
    sed 's/^/guest: gamepad: /' /tmp/tp.err
    rm -f /tmp/sdl.in; mkfifo /tmp/sdl.in
    SDL_JOYSTICK_DISABLE_UDEV=1 SDL_JOYSTICK_HIDAPI=0 sdl-pads 2 20 < /tmp/sdl.in > /tmp/sdl.out 2> /tmp/sdl.err &
    sdlpid=$!
    exec 7> /tmp/sdl.in
    wait_text /tmp/sdl.out '^pad 1 \|^only\|failed' 1 || { why="sdl-pads: $(head -c 300 /tmp/sdl.out) $(head -c 200 /tmp/sdl.err)"; return 1; }
    sed 's/^/guest: sdl-pads: /' /tmp/sdl.out
    grep -qx 'pads 2' /tmp/sdl.out || { why="SDL: $(grep -m 1 'pads\|only\|failed' /tmp/sdl.out)"; return 1; }
    n0=$(pad_line 0 | sed -n 's/.* name=//p'); n1=$(pad_line 1 | sed -n 's/.* name=//p')
    [ "$n0" = "Tiltboard 1" ] && [ "$n1" = "Tiltboard 2" ] || { why="SDL's order: 0 \"$n0\", 1 \"$n1\""; return 1; }
    g0=$(pad_line 0 | sed -n 's/.* guid=\([0-9a-f]*\) .*/\1/p'); g1=$(pad_line 1 | sed -n 's/.* guid=\([0-9a-f]*\) .*/\1/p')
    [ -n "$g0" ] && [ "$g0" != "$g1" ] || { why="GUIDs '$g0' and '$g1'"; return 1; }
    pad_line 0 | grep -q ' rumble=1 ' && pad_line 1 | grep -q ' rumble=1 ' || { why="SDL offers no rumble: $(pad_line 0)"; return 1; }
    pad_line 0 | grep -q ' player=0 ' && pad_line 1 | grep -q ' player=1 ' || { why="SDL's player indexes: $(pad_line 0 | cut -d' ' -f5), $(pad_line 1 | cut -d' ' -f5)"; return 1; }
    pads_ok=1
}
check "two players: gamepad --board ×2 gives SDL two controllers, \"Tiltboard 1\" then \"Tiltboard 2\" (player indexes 0 and 1), distinct GUIDs, both with rumble" two_pads

# tilt_only ADDR OWN OTHER: tilting the board at ADDR moves pad OWN's stick past half deflection
# while pad OTHER's stays centred (under 1000 of 32767); level again, OWN's stick settles back
# (under 500 for 2 s on end). The stub's gyro reads 0 while the accelerometer jumps, so the
# estimate follows through its filter and rest mean (TiltEstimator), swinging past the centre on
# the way back and taking seconds under TCG on a busy host (4 to 19 s seen): up to 15 s out and
# 30 s back.
tilt_only() {
    [ "$pads_ok" = 1 ] || { why="the SDL check before did not pass"; return 1; }
    sdl mark '^marked' || { why="sdl-pads did not answer"; return 1; }
    tilt_player $1 || { why="i2cset failed"; return 1; }
    sdl "until $2 over 16384 15000" "^until $2 " 20 || { why="sdl-pads did not answer"; return 1; }
    sdl peaks "^peak 1 " || { why="sdl-pads did not answer"; return 1; }   # pad 1's line comes last
    grep '^peak' /tmp/sdl.out | tail -n 2 | sed 's/^/guest: sdl-pads: /'
    mine=$(grep "^peak $2 " /tmp/sdl.out | tail -n 1 | cut -d' ' -f3); theirs=$(grep "^peak $3 " /tmp/sdl.out | tail -n 1 | cut -d' ' -f3)
    level_player $1
    [ "$mine" -gt 16384 ] 2>/dev/null || { why="pad $2's stick peaked at $mine"; return 1; }
    [ "$theirs" -lt 1000 ] 2>/dev/null || { why="pad $3's stick moved too: peak $theirs"; return 1; }
    sdl "settle $2 500 2000 30000" "^settle $2 " 35 && echo "$answer" | grep -q ' ok ' || { why="pad $2 not back in the centre: $answer"; return 1; }
    echo "guest: pad $2 settled in the centre $(echo "$answer" | cut -d' ' -f4) ms after the board was level"
}
check "two players: tilting board 1 (0x68) moves only SDL controller 1's stick" tilt_only 0x68 0 1
check "two players: tilting board 2 (0x69) moves only SDL controller 2's stick" tilt_only 0x69 1 0

# Board 2 fails while both play: its chip resets (PWR_MGMT_1 back at 0x40) and answers with
# WHO_AM_I 0x00, so every attempt to restore it fails; board 1 plays on. The stub cannot NACK one
# address on demand, so this is the chip failing, not the bus.
lost_ok=0
board2_lost() {
    [ "$pads_ok" = 1 ] || { why="the SDL check before did not pass"; return 1; }
    $I2CSET -y $BUS 0x69 0x75 0x00 && $I2CSET -y $BUS 0x69 0x6B 0x40 || { why="i2cset failed"; return 1; }
    wait_text /tmp/tp.err 'player 2: sensor lost at ' 1 || { why="no loss noted: $(tail -n 2 /tmp/tp.err | cut -c 1-200)"; return 1; }
    grep 'player 2: sensor lost' /tmp/tp.err | cut -c 1-200 | sed 's/^/guest: gamepad: /'
    ! grep -q 'player 1: sensor lost' /tmp/tp.err || { why="player 1 lost too: $(grep -m 1 'player 1: sensor lost' /tmp/tp.err)"; return 1; }
    kill -0 $tppid 2>/dev/null || { why="gamepad exited: $(tp_err)"; return 1; }
    lost_ok=1
    tilt_only 0x68 0 1
}
check "two players: board 2's chip lost (reset, WHO_AM_I 0x00 at 0x69): tilting board 1 still moves only controller 1" board2_lost
board2_back() {
    [ "$lost_ok" = 1 ] || { why="the loss check before did not pass"; return 1; }
    $I2CSET -y $BUS 0x69 0x75 0x68 || { why="i2cset failed"; return 1; }
    wait_text /tmp/tp.err 'player 2: sensor back at .* (reconfigured)' 1 || { why="not back: $(tail -n 2 /tmp/tp.err | cut -c 1-200)"; return 1; }
    grep 'player 2: sensor back' /tmp/tp.err | sed 's/^/guest: gamepad: /'
    pwr=$(reg 0x69 0x6B) || { why=$(cat /tmp/reg.err); return 1; }
    [ "$pwr" = 0x01 ] || { why="PWR_MGMT_1 at 0x69 is $pwr, want 0x01 (configured)"; return 1; }
    ! grep -q 'player 1: sensor' /tmp/tp.err || { why="player 1: $(grep -m 1 'player 1: sensor' /tmp/tp.err)"; return 1; }
    tilt_only 0x69 1 0
}
check "two players: board 2 answering again is reconfigured and moves only controller 2" board2_back

# rumble_only PAD MOTOR OTHER: SDL's 400 ms rumble on PAD turns GPIO<MOTOR> on, and SDL's stop
# when the 400 ms are up turns it off again (200…800 ms on: TCG's stalls, and well short of the
# board's 1000 ms cap), while GPIO<OTHER> stays low throughout (lines read every ~10 ms for 2 s,
# from just before the request).
rumble_only() {
    [ "$pads_ok" = 1 ] || { why="the SDL check before did not pass"; return 1; }
    before=$(grep -c "^rumble $1 " /tmp/sdl.out)
    read -r t0 _ < /proc/uptime
    echo "rumble $1 400" >&7
    on=""; off=""; other=0; i=0
    while [ $i -lt 200 ]; do
        read -r v < "$SIM/sim_gpio$2/value"; read -r w < "$SIM/sim_gpio$3/value"
        [ "$w" = 1 ] && other=1
        if [ "$v" = 1 ] && [ -z "$on" ]; then read -r on _ < /proc/uptime; fi
        if [ "$v" = 0 ] && [ -n "$on" ] && [ -z "$off" ]; then read -r off _ < /proc/uptime; fi
        usleep 10000; i=$((i + 1))
    done
    echo "guest: rumble on pad $1 requested at $t0 s: GPIO$2 on at ${on:-never}, off at ${off:-never}; GPIO$3 $([ $other = 1 ] && echo went high || echo stayed low)"
    wait_text /tmp/sdl.out "^rumble $1 " $((before + 1)) || { why="sdl-pads did not answer"; return 1; }
    answer=$(grep "^rumble $1 " /tmp/sdl.out | tail -n 1)
    [ "$(echo "$answer" | cut -d' ' -f4)" = 0 ] || { why="SDL: $answer"; return 1; }
    [ -n "$on" ] || { why="GPIO$2 never went high"; return 1; }
    [ -n "$off" ] || { why="GPIO$2 still high 2 s after a 400 ms rumble"; return 1; }
    [ $other = 0 ] || { why="GPIO$3 went high too"; return 1; }
    awk -v a="$on" -v b="$off" 'BEGIN { ms = (b - a) * 1000; printf "guest: GPIO on for %.0f ms\n", ms; exit !(ms >= 200 && ms <= 800) }' \
        || { why="GPIO$2 on from $on to $off s, want 400 ms (200…800)"; return 1; }
}
check "two players: a 400 ms rumble through SDL controller 2 runs only GPIO27 (board 2's motor), for about 400 ms" rumble_only 1 27 17
check "two players: a 400 ms rumble through SDL controller 1 runs only GPIO17 (board 1's motor), for about 400 ms" rumble_only 0 17 27

# SIGTERM: both devices gone, both lines low and released, both sensors asleep.
two_players_stop() {
    [ -n "$tppid" ] || { why="not started"; return 1; }
    [ -n "$sdlpid" ] && { echo quit >&7; exec 7>&-; wait_for 5 eval '! kill -0 $sdlpid 2>/dev/null'; kill $sdlpid 2>/dev/null; wait $sdlpid; }
    kill -TERM $tppid 2>/dev/null
    wait_for 10 eval '! kill -0 $tppid 2>/dev/null' || { kill -KILL $tppid; why="still running 10 s after SIGTERM"; return 1; }
    wait $tppid; rc=$?
    sed 's/^/guest: gamepad: /' /tmp/tp.err | tail -n 4
    [ $rc = 0 ] || { why="exit $rc: $(tp_err)"; return 1; }
    ! pad_exists "Tiltboard 1" && ! pad_exists "Tiltboard 2" || { why="a Tiltboard device remains"; return 1; }
    for n in 17 27; do
        read -r v < "$SIM/sim_gpio$n/value"; [ "$v" = 0 ] || { why="GPIO$n still high"; return 1; }
        gpioinfo pinctrl-bcm2711 2>/dev/null | grep "line  *$n:" | grep -q unused || { why="GPIO$n still requested"; return 1; }
    done
    for a in 0x68 0x69; do
        pwr=$(reg $a 0x6B) || { why=$(cat /tmp/reg.err); return 1; }
        [ $((pwr & 0x40)) = 64 ] || { why="PWR_MGMT_1 $pwr at $a: not asleep"; return 1; }
    done
}
check "two players: after SIGTERM both devices are gone, GPIO17 and GPIO27 low and released, both sensors asleep" two_players_stop

finish
