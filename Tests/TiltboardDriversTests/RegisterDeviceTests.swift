import XCTest
import TiltboardCore
import TiltboardDrivers

/// The register-device layer: auto-increment conventions, data ports, volatile registers and
/// the read-back of configuration writes, as exact bus transactions.
final class RegisterDeviceTests: XCTestCase {
    private let clock = ManualClock()

    /// An ST-style map: bursts auto-increment only with bit 7 of the sub-address set.
    private let stMap = RegisterMap(autoIncrement: .whenSubAddressBit(0x80), writable: [0x1E...0x3F],
                                    volatile: [0x27...0x2D], readBackMasks: [(0x24, 0x7F)])

    func testSubAddressBit7IsSetForBurstsOnly() throws {
        let bus = ScriptedBus(clock: clock)
        let device = RegisterDevice(bus: bus, address: 0x18, map: stMap)
        bus.expect(.read(0x18, 0x0F, [0x33]),                       // one byte: plain sub-address
                   .read(0x18, 0xA8, [1, 2, 3, 4, 5, 6]),           // a burst: bit 7 set
                   .write(0x18, 0x20, [0x57]),
                   .write(0x18, 0xA2, [0x00, 0x40]))
        XCTAssertEqual(try device.readByte(0x0F), 0x33)
        var burst = [UInt8](repeating: 0, count: 6)
        try burst.withUnsafeMutableBytes { try device.read(0x28, into: $0) }
        XCTAssertEqual(burst, [1, 2, 3, 4, 5, 6])
        try device.write(0x20, 0x57)
        try [UInt8(0x00), 0x40].withUnsafeBytes { try device.write(0x22, bytes: $0) }
        bus.assertDone()
        XCTAssertEqual(stMap.decode(subAddress: 0xA8).register, 0x28)
        XCTAssertTrue(stMap.decode(subAddress: 0xA8).increments)
        XCTAssertFalse(stMap.decode(subAddress: 0x28).increments)
    }

    func testABusFailureNamesTheRegisterNotTheAutoIncrementFlag() throws {
        let bus = ScriptedBus(clock: clock)
        let device = RegisterDevice(bus: bus, address: 0x18, map: stMap)
        let nack = I2CError(kind: .noAcknowledgeData, device: "scripted", address: 0x18, register: 0xA8)
        bus.expect(.readFails(0x18, 0xA8, count: 6, nack))
        var burst = [UInt8](repeating: 0, count: 6)
        XCTAssertThrowsError(try burst.withUnsafeMutableBytes { try device.read(0x28, into: $0) }) { error in
            XCTAssertEqual((error as? I2CError)?.register, 0x28)
        }
        bus.assertDone()
    }

    func testConfigurationIsReadBackInRunsUnderTheMaskAndVolatileRegistersAreNot() throws {
        let bus = ScriptedBus(clock: clock)
        let device = RegisterDevice(bus: bus, address: 0x18, map: stMap)
        bus.expect(.write(0x18, 0x20, [0x57]), .write(0x18, 0x21, [0x00]), .write(0x18, 0x24, [0x80]),
                   .write(0x18, 0x28, [0x11]),  // volatile: written, never read back
                   .write(0x18, 0x20, [0x77]),  // the latest value is the one checked
                   .read(0x18, 0xA0, [0x77, 0x00]), .read(0x18, 0x24, [0x00]))
        try device.configure(0x20, 0x57)
        try device.configure(0x21, 0x00)
        try device.configure(0x24, 0x80)  // bit 7 self-clears (mask 0x7F)
        try device.configure(0x28, 0x11)
        try device.configure(0x20, 0x77)
        try device.verifyConfiguration()
        // Nothing left to check: a second call reads nothing.
        try device.verifyConfiguration()
        bus.expect(.write(0x18, 0x21, [0x08]), .read(0x18, 0x21, [0x00]))
        try device.configure(0x21, 0x08)
        XCTAssertThrowsError(try device.verifyConfiguration()) { error in
            XCTAssertEqual(error as? SensorError, .verifyFailed(register: 0x21, wrote: 0x08, read: 0x00,
                                                                bus: "/dev/i2c-1", address: 0x18))
        }
        bus.assertDone()
    }

    func testADataPortBurstKeepsReadingOneRegister() throws {
        let bus = ScriptedBus(clock: clock)
        let device = RegisterDevice(bus: bus, address: 0x68, map: MPU6050Variant.mpu6050.registerMap)
        bus.expect(.readFIFO(0x68, 0x74, [UInt8](repeating: 7, count: 28)), .read(0x68, 0x72, [0, 28]))
        var batch = [UInt8](repeating: 0, count: 28)
        try batch.withUnsafeMutableBytes { try device.read(0x74, into: $0) }
        var count = [UInt8](repeating: 0, count: 2)
        try count.withUnsafeMutableBytes { try device.read(0x72, into: $0) }
        bus.assertDone()
    }
}
