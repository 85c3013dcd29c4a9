import XCTest
import TiltboardCore
import TiltboardDrivers

final class ProbeTests: XCTestCase {
    private let clock = ManualClock()

    private func absent(_ address: UInt8, _ register: UInt8) -> Expect {
        .readFails(address, register, count: 1,
                   I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: address, register: register,
                            errno: 6, detail: "No such device or address"))
    }

    func testProbeReportsOnlyAnsweringAddresses() throws {
        let bus = ScriptedBus(clock: clock)
        bus.expect(absent(0x1D, 0x00),
                   .read(0x53, 0x00, [0xE5]),
                   .read(0x68, 0x75, [0x70]),
                   absent(0x69, 0x75),
                   .read(0x50, 0x75, [0x12]), .read(0x50, 0x00, [0x34]), .read(0x50, 0x0F, [0x56]),
                   .read(0x1D, 0x00, [0x00]), .read(0x1D, 0x75, [0x68]),
                   // The LIS3DH's own address: its WHO_AM_I (0x0F) is asked first.
                   .read(0x18, 0x0F, [0x33]))
        let found = try ChipKind.probe(bus: bus, addresses: [0x1D, 0x53, 0x68, 0x69, 0x50, 0x1D, 0x18])
        XCTAssertEqual(found, [
            ProbeResult(address: 0x53, chip: .adxl345, part: "ADXL345", chipID: 0xE5),
            ProbeResult(address: 0x68, chip: .mpu6050, part: "MPU-6500", chipID: 0x70),
            ProbeResult(address: 0x50, chip: nil, part: "unknown device", chipID: nil),
            ProbeResult(address: 0x1D, chip: .mpu6050, part: "MPU-6050", chipID: 0x68),
            ProbeResult(address: 0x18, chip: .lis3dh, part: "LIS3DH", chipID: 0x33),
        ])
        bus.assertDone()
    }

    func testProbePropagatesOtherBusErrors() {
        let bus = ScriptedBus(clock: clock)
        let eio = I2CError(kind: .bus, device: "/dev/i2c-1", address: 0x68, register: 0x75, errno: 5, detail: "Input/output error")
        bus.expect(.readFails(0x68, 0x75, count: 1, eio))
        assertThrows(eio) { _ = try ChipKind.probe(bus: bus, addresses: [0x68, 0x69]) }
        bus.assertDone()
    }

    func testProbeResultEncodesAsJSON() throws {
        let data = try JSONEncoder().encode(ProbeResult(address: 0x68, chip: .mpu6050, part: "MPU-6050", chipID: 0x68))
        let back = try JSONDecoder().decode(ProbeResult.self, from: data)
        XCTAssertEqual(back, ProbeResult(address: 0x68, chip: .mpu6050, part: "MPU-6050", chipID: 0x68))
    }

    func testOpenSensorPicksTheDriver() throws {
        let bus = ScriptedBus(clock: clock)
        bus.expect(.read(0x53, 0x00, [0xE5]), .read(0x69, 0x75, [0x68]))
        XCTAssertTrue(try ChipKind.adxl345.openSensor(bus: bus, address: 0x53, clock: clock) is ADXL345)
        let mpu = try ChipKind.mpu6050.openSensor(bus: bus, address: 0x69, clock: clock)
        XCTAssertTrue(mpu is MPU6050)
        XCTAssertEqual(mpu.identity.address, 0x69)
        bus.assertDone()
    }
}
