import XCTest
import TiltboardCommands
import TiltboardDrivers

/// The sentences of TiltboardDrivers' sensor errors in the one table (a lost sensor, which quotes
/// one, is pinned by the bus-fault command tests). The drivers' own tests assert kinds and fields.
final class ErrorWordingDriversTests: XCTestCase {
    func testEverySensorErrorHasItsSentence() {
        let cases: [(SensorError, String)] = [
            (.wrongChip(found: 0x68, address: 0x53, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0xE5, part: "ADXL345")),
             "found 0x68 at 0x53 on /dev/i2c-1, expected 0xe5 (ADXL345)"),
            (.wrongChip(found: 0x00, address: 0x68, bus: "/dev/i2c-1",
                        expected: ExpectedChip(id: 0x68, part: "MPU-6050", compatibleIDs: [0x70, 0x71, 0x72, 0x73, 0x98])),
             "found 0x00 at 0x68 on /dev/i2c-1, expected 0x68 (MPU-6050) or a known compatible ID (0x70, 0x71, 0x72, 0x73, 0x98)"),
            (.wrongChip(found: 0x68, address: 0x68, bus: "/dev/i2c-1", expected: ExpectedChip(id: 0x70, part: "MPU-6500 (clone ID 0x70)", asWhenOpened: true)),
             "found 0x68 at 0x68 on /dev/i2c-1, expected 0x70 (MPU-6500 (clone ID 0x70), as when the board was opened)"),
            (.verifyFailed(register: 0x1B, wrote: 0x08, read: 0x00, bus: "/dev/i2c-1", address: 0x68),
             "register 0x1b of the chip at 0x68 on /dev/i2c-1 reads back 0x00 after writing 0x08: the chip is not keeping its configuration (power, wiring or a clone part)"),
            (.configurationLost(register: 0x6B, configured: 0x01, read: 0x40, bus: "/dev/i2c-1", address: 0x68),
             "register 0x6b of the chip at 0x68 on /dev/i2c-1 reads 0x40, not the configured 0x01: the chip reset (a power glitch or brown-out) and lost its configuration"),
            (.unsupportedSetting(.accelerometerRange(g: 6), chip: "LIS3DH", allowed: .oneOf([2, 4, 8, 16])),
             "LIS3DH cannot use accelerometer range 6 g: choose one of 2, 4, 8, 16 g"),
            (.unsupportedSetting(.gyroRange(degreesPerSecond: 1000), chip: "LSM9DS1", allowed: .oneOf([245, 500, 2000])),
             "LSM9DS1 cannot use gyro range 1000 °/s: choose one of 245, 500, 2000 °/s"),
            (.unsupportedSetting(.sampleRate(hz: 0), chip: "MPU-6050", allowed: .positiveRate),
             "MPU-6050 cannot use a sample rate of 0.0 Hz: give a positive rate in Hz"),
            (.unsupportedSetting(.motionThreshold(g: 9), chip: "MPU-6050", allowed: .upToG(255 * 0.032)),
             "MPU-6050 cannot use a motion threshold of 9.0 g: give more than 0 and at most 8.16 g"),
            (.unsupportedSetting(.offsetRegisters, chip: "LIS3DH", allowed: .noOffsetRegisters),
             "LIS3DH cannot use offset registers: it has none; the profile corrects in software"),
            (.unsupportedSetting(.offsetRegisters, chip: "ICM-20948", allowed: .offsetRegistersNotProgrammed),
             "ICM-20948 cannot use offset registers: this driver does not program them; the profile corrects in software"),
            (.unsupportedSetting(.wakeOnMotion, chip: "LSM9DS1", allowed: .interruptGeneratorNotArmed),
             "LSM9DS1 cannot use wake-on-motion: this driver does not arm its interrupt generator; run without wake-on-motion"),
            (.unsupportedSetting(.wakeOnMotion, chip: "ICM-20948", allowed: .wakeOnMotionNotArmed),
             "ICM-20948 cannot use wake-on-motion: this driver does not arm its wake-on-motion yet; run without wake-on-motion"),
        ]
        for (error, sentence) in cases { XCTAssertEqual(describe(error), sentence) }
    }

    func testEveryI2CErrorKindHasItsSentence() {
        let cases: [(I2CError, String)] = [
            (I2CError(kind: .noSuchBus, device: "/dev/i2c-7", errno: 2, detail: "No such file or directory"),
             "I²C bus /dev/i2c-7 does not exist (errno 2 No such file or directory)"),
            (I2CError(kind: .permissionDenied, device: "/dev/i2c-1", errno: 13, detail: "Permission denied"),
             "I²C bus /dev/i2c-1: permission denied (errno 13 Permission denied)"),
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x53, register: 0x32, errno: 6, detail: "No such device or address"),
             "I²C no device answers at 0x53 on /dev/i2c-1 (register 0x32, errno 6 No such device or address)"),
            (I2CError(kind: .noAcknowledgeAddress, device: "simulated", address: 0x68, register: 0x75, detail: "simulated: unplugged"),
             "I²C no device answers at 0x68 on simulated (register 0x75, simulated: unplugged)"),
            (I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-1", address: 0x68),
             "I²C device 0x68 on /dev/i2c-1 stopped acknowledging"),
            (I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1"), "I²C no device answers at ? on /dev/i2c-1"),
            (I2CError(kind: .bus, device: "/dev/i2c-1", address: 0x68, register: 0x3B, errno: 5, detail: "Input/output error"),
             "I²C bus error on /dev/i2c-1 (address 0x68, register 0x3b, errno 5 Input/output error)"),
            (I2CError(kind: .arbitrationLost, device: "/dev/i2c-1", errno: 11), "I²C arbitration lost on /dev/i2c-1 (errno 11)"),
            (I2CError(kind: .timeout, device: "/dev/i2c-1", address: 0x68), "I²C timeout on /dev/i2c-1 (address 0x68)"),
            (I2CError(kind: .unsupported, device: "/dev/i2c-1", address: 0x68, register: 0x3B, refusal: .messageTooLong(bytes: 9000)),
             "I²C transfer not supported by the adapter of /dev/i2c-1 (address 0x68, register 0x3b, transfer of 9000 bytes exceeds the 8192-byte message limit)"),
            (I2CError(kind: .unsupported, device: "/dev/i2c-3", refusal: .noUsableTransfers(functionality: 0x1)),
             "I²C transfer not supported by the adapter of /dev/i2c-3 (adapter offers neither plain I²C nor SMBus byte-data transfers (functionality 0x00000001))"),
            (I2CError(kind: .unsupported, device: "/dev/i2c-0", address: 0x68, register: 0x3B, refusal: .smbusWriteBeforeRead(bytes: 3)),
             "I²C transfer not supported by the adapter of /dev/i2c-0 (address 0x68, register 0x3b, the adapter only does SMBus transfers, which cannot send 3 bytes before a read)"),
            (I2CError(kind: .unsupported, device: "simulated", address: 0x68, register: 0x3B, refusal: .simulatedDataBeforeRead(dataBytes: 2)),
             "I²C transfer not supported by the adapter of simulated (address 0x68, register 0x3b, the simulated bus takes only a sub-address before a repeated-start read, not 2 data bytes)"),
            (I2CError(kind: .other, device: "simulated"), "I²C failure on simulated"),
        ]
        for (error, sentence) in cases { XCTAssertEqual(describe(error), sentence) }
    }

    func testTheLogFormNamesTheKindAndItsFields() {
        XCTAssertEqual("\(SensorError.unsupportedSetting(.sampleRate(hz: 0), chip: "MPU-6050", allowed: .positiveRate))",
                       "SensorError.unsupportedSetting(sampleRate(hz: 0.0), chip: MPU-6050, allowed: positiveRate)")
        XCTAssertEqual("\(I2CError(kind: .bus, device: "/dev/i2c-1", address: 0x68, register: 0x3B, errno: 5))",
                       "I2CError(bus, device: /dev/i2c-1, address: 0x68, register: 0x3b, errno: 5)")
    }
}
