import Foundation
import XCTest
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// `probe --all-buses`: adapters from a staged sysfs, multiplexer channels by the kernel's
/// names, chips found on simulated buses, and the board files written for them.
final class BusDiscoveryTests: XCTestCase {
    private struct Still: MotionSource {
        func state(at t: Double) -> PhysicalState { .flat }
        var duration: Duration? { nil }
    }

    private func stage(_ root: String, _ path: String, _ text: String) throws {
        let full = root + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: full))
    }

    func testAMultiplexerChannelIsKnownByTheKernelsName() {
        XCTAssertEqual(I2CAdapters.muxChannel(adapterName: "i2c-1-mux (chan_id 0)"), .init(parent: 1, channel: 0))
        XCTAssertEqual(I2CAdapters.muxChannel(adapterName: "i2c-12-mux (chan_id 7)"), .init(parent: 12, channel: 7))
        XCTAssertNil(I2CAdapters.muxChannel(adapterName: "bcm2835 (i2c@7e804000)"))
        XCTAssertNil(I2CAdapters.muxChannel(adapterName: "i2c-1-mux (chan_id x)"))
        XCTAssertNil(I2CAdapters.muxChannel(adapterName: "i2c-x-mux (chan_id 0)"))
        XCTAssertNil(I2CAdapters.muxChannel(adapterName: "i2c-1-mux"))
        XCTAssertNil(I2CAdapters.muxChannel(adapterName: ""))
    }

    func testAdaptersComeFromSysfsInNumericOrderWithTheirNames() throws {
        let root = try makeScratchFolder(self) + "/sys"
        try stage(root, "/class/i2c-dev/i2c-22/name", "i2c-1-mux (chan_id 0)\n")
        try stage(root, "/class/i2c-dev/i2c-1/name", "bcm2835 (i2c@7e804000)\n")
        try stage(root, "/class/i2c-dev/i2c-3/dev", "89:3\n")
        try stage(root, "/bus/i2c/devices/i2c-3/name", "i2c-gpio3\n")
        let adapters = I2CAdapters.list(sysfsRoot: root)
        XCTAssertEqual(adapters.map(\.number), [1, 3, 22])
        XCTAssertEqual(adapters.map(\.name), ["bcm2835 (i2c@7e804000)", "i2c-gpio3", "i2c-1-mux (chan_id 0)"])
        XCTAssertEqual(adapters.map(\.device), ["/dev/i2c-1", "/dev/i2c-3", "/dev/i2c-22"])
        XCTAssertEqual(adapters.map(\.mux), [nil, nil, .init(parent: 1, channel: 0)])
        // Without i2c-dev's class: the adapters of the I²C bus type.
        let bare = try makeScratchFolder(self) + "/sys"
        try stage(bare, "/bus/i2c/devices/i2c-4/name", "fake\n")
        try stage(bare, "/bus/i2c/devices/4-0068/name", "mpu6050\n")
        XCTAssertEqual(I2CAdapters.list(sysfsRoot: bare), [I2CAdapterInfo(number: 4, name: "fake")])
        XCTAssertEqual(I2CAdapters.list(sysfsRoot: bare + "/none"), [])
    }

    func testEveryBusIsProbedAndEachChipGetsABoardFileThatLoads() throws {
        let clock = ManualClock()
        let main = SimulatedI2CBus(name: "/dev/i2c-1"), channel = SimulatedI2CBus(name: "/dev/i2c-22")
        main.attachChip(.mpu6050, clock: clock, motion: Still())
        main.attachChip(.lis3dh, clock: clock, motion: Still())
        channel.attachChip(.mpu6050, at: 0x69, clock: clock, motion: Still())
        let adapters = [I2CAdapterInfo(number: 1, name: "bcm2835 (i2c@7e804000)"), I2CAdapterInfo(number: 3, name: "gone"),
                        I2CAdapterInfo(number: 22, name: "i2c-1-mux (chan_id 0)")]
        let lis3dhDriver = I2CDriverBinding(driver: "st-accel-i2c", device: "1-0018", deviceName: "lis3dh", bus: "/dev/i2c-1", address: 0x18)
        main.recordsTrace = true
        var opened: [String] = []
        let reports = BusDiscovery.probe(adapters, open: { path in
            opened.append(path)
            switch path {
            case "/dev/i2c-1": return main
            case "/dev/i2c-22": return channel
            default: throw I2CError(kind: .noSuchBus, device: path, address: 0)
            }
        }, owned: { bus, _ in bus == "/dev/i2c-1" ? [lis3dhDriver] : [] }, describe: { "\($0)" })
        XCTAssertEqual(opened, ["/dev/i2c-1", "/dev/i2c-3", "/dev/i2c-22"])
        XCTAssertEqual(reports.map(\.device), ["/dev/i2c-1", "/dev/i2c-3", "/dev/i2c-22"])
        // The MPU-6050 on the main bus; the LIS3DH its kernel driver owns is not asked.
        XCTAssertEqual(reports[0].found, [ProbeResult(address: 0x68, chip: .mpu6050, part: "MPU-6050", chipID: 0x68)])
        XCTAssertEqual(reports[0].owned, [lis3dhDriver])
        XCTAssertFalse(main.trace.contains { $0.address == 0x18 })
        XCTAssertNotNil(reports[1].failure)
        XCTAssertEqual(reports[1].found, [])
        XCTAssertEqual(reports[2].found, [ProbeResult(address: 0x69, chip: .mpu6050, part: "MPU-6050", chipID: 0x68)])
        XCTAssertEqual(reports[2].mux, .init(parent: 1, channel: 0))

        let folder = try makeScratchFolder(self)
        for r in reports {
            for d in r.found {
                let (name, text) = BusDiscovery.boardFile(for: d, chip: try XCTUnwrap(d.chip), bus: r.device, mux: r.mux)
                try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
            }
        }
        let first = try BoardDescription.load(path: folder + "/mpu6050-i2c-1-0x68.json")
        XCTAssertEqual(first.name, "MPU-6050 at 0x68 on /dev/i2c-1")
        XCTAssertEqual(first.sensor, .init(chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68))
        XCTAssertNil(first.motor)
        let muxed = try BoardDescription.load(path: folder + "/mpu6050-i2c-22-0x69.json")
        XCTAssertEqual(muxed.name, "MPU-6050 at 0x69 on /dev/i2c-22 (channel 0 of the multiplexer on /dev/i2c-1)")
        XCTAssertEqual(muxed.sensor, .init(chip: .mpu6050, bus: "/dev/i2c-22", address: 0x69))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(),
                       ["mpu6050-i2c-1-0x68.json", "mpu6050-i2c-22-0x69.json"])
    }
}
