import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

final class BusTests: XCTestCase {
    let mpu: UInt8 = 0x68
    let SMPLRT_DIV: UInt8 = 0x19
    let ACCEL_XOUT_H: UInt8 = 0x3B
    let WHO_AM_I: UInt8 = 0x75

    func makeBus() -> (SimulatedI2CBus, ManualClock) {
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: Constant(accel: .unitZ)), at: mpu)
        return (bus, clock)
    }

    func testAWritePhaseWithDataBeforeAReadIsRefusedNotDropped() throws {
        let clock = ManualClock()
        let bus = SimulatedI2CBus()
        bus.attach(SimulatedMPU6050(clock: clock, motion: MotionScript.builtIn(named: "flat")!), at: 0x68)
        var read: UInt8 = 0
        XCTAssertThrowsError(try [UInt8(0x1B), 0x18].withUnsafeBytes { write in
            try withUnsafeMutableBytes(of: &read) { try bus.transfer(address: 0x68, write: write, read: $0, pattern: .incrementing) }
        }) { error in
            XCTAssertEqual((error as? I2CError)?.kind, .unsupported)
            XCTAssertEqual((error as? I2CError)?.refusal, .simulatedDataBeforeRead(dataBytes: 1))
        }
        XCTAssertEqual(try bus.readByte(address: 0x68, register: 0x1B), 0, "GYRO_CONFIG untouched")
    }

    func testUnattachedAddressIsNoAcknowledge() {
        let (bus, _) = makeBus()
        XCTAssertThrowsError(try bus.readByte(address: 0x53, register: 0x00)) { error in
            XCTAssertEqual(error as? I2CError, I2CError(kind: .noAcknowledgeAddress, device: "simulated", address: 0x53,
                                                        register: 0x00, cause: .simulatedNoDevice))
        }
    }

    func testInjectedNackFailsExactlyNTransactionsAndIsTraced() throws {
        let (bus, _) = makeBus()
        bus.recordsTrace = true
        bus.injectFault(.noAcknowledgeAddress, count: 2)
        for _ in 0..<2 {
            XCTAssertThrowsError(try bus.readByte(address: mpu, register: WHO_AM_I)) { error in
                let e = error as? I2CError
                XCTAssertEqual(e?.kind, .noAcknowledgeAddress)
                XCTAssertEqual(e?.errno, 6)
                XCTAssertEqual(e?.address, 0x68)
                XCTAssertEqual(e?.register, 0x75)
            }
        }
        XCTAssertEqual(try bus.readByte(address: mpu, register: WHO_AM_I), 0x68)
        XCTAssertEqual(bus.trace, [
            I2CTransaction(kind: .read, address: 0x68, register: 0x75, bytes: [], error: .noAcknowledgeAddress),
            I2CTransaction(kind: .read, address: 0x68, register: 0x75, bytes: [], error: .noAcknowledgeAddress),
            I2CTransaction(kind: .read, address: 0x68, register: 0x75, bytes: [0x68]),
        ])
        XCTAssertEqual(bus.transactionCount, 3)
        XCTAssertEqual(bus.bytesTransferred, 1)
    }

    func testFailedWriteHasNoSideEffect() throws {
        let (bus, _) = makeBus()
        bus.injectFault(.bus)
        XCTAssertThrowsError(try bus.writeByte(address: mpu, register: SMPLRT_DIV, value: 9)) { error in
            let e = error as? I2CError
            XCTAssertEqual(e?.kind, .bus)
            XCTAssertEqual(e?.errno, 5)
            XCTAssertEqual(e?.detail, "Input/output error (simulated)")
        }
        XCTAssertEqual(try bus.readByte(address: mpu, register: SMPLRT_DIV), 0)
        try bus.writeByte(address: mpu, register: SMPLRT_DIV, value: 9)
        XCTAssertEqual(try bus.readByte(address: mpu, register: SMPLRT_DIV), 9)
    }

    func testRemoteIOErrorCarriesEREMOTEIO() {
        let (bus, _) = makeBus()
        bus.injectFault(.noAcknowledgeData)
        XCTAssertThrowsError(try bus.readByte(address: mpu, register: WHO_AM_I)) { error in
            XCTAssertEqual((error as? I2CError)?.errno, 121)
            // As Linux reads EREMOTEIO: a NACK, whatever phase it came in, exits as one (69).
            XCTAssertEqual((error as? I2CError)?.kind, .noAcknowledgeAddress)
        }
    }

    func testEveryInjectedFaultCarriesTheErrnoAndKindLinuxGivesIt() {
        let kinds: [I2CError.Kind] = [.noSuchBus, .permissionDenied, .noAcknowledgeAddress, .bus, .arbitrationLost, .timeout, .unsupported]
        for kind in kinds {
            let (bus, _) = makeBus()
            bus.injectFault(kind)
            XCTAssertThrowsError(try bus.readByte(address: mpu, register: WHO_AM_I)) { error in
                let e = error as? I2CError
                let expected = I2CFaultCodes.table.first { $0.kind == kind }
                XCTAssertEqual(e?.errno, expected?.errno, "\(kind)")
                XCTAssertEqual(e?.kind, kind, "\(kind)")
                XCTAssertEqual(e?.detail, (expected?.text ?? "") + " (simulated)", "\(kind)")
            }
        }
    }

    func testCountersAndBusTime() throws {
        let (bus, _) = makeBus()
        _ = try bus.read(address: mpu, register: ACCEL_XOUT_H, count: 14)
        XCTAssertEqual(bus.transactionCount, 1)
        XCTAssertEqual(bus.bytesTransferred, 14)
        // 30 + 9·14 clocks at 400 kHz = 0.39 ms.
        XCTAssertEqual(bus.busTimeSeconds, 156.0 / 400_000, accuracy: 1e-12)
        try bus.write(address: mpu, register: SMPLRT_DIV, bytes: [1, 2])
        XCTAssertEqual(bus.transactionCount, 2)
        XCTAssertEqual(bus.bytesTransferred, 16)
        XCTAssertEqual(bus.busTimeSeconds, (156.0 + 48.0) / 400_000, accuracy: 1e-12)
        XCTAssertTrue(bus.trace.isEmpty, "trace is off by default")
    }

    func testTraceRecordsExactSequence() throws {
        let (bus, _) = makeBus()
        bus.recordsTrace = true
        try bus.write(address: mpu, register: SMPLRT_DIV, bytes: [9, 3])
        let back = try bus.read(address: mpu, register: SMPLRT_DIV, count: 2)
        XCTAssertEqual(back, [9, 3])
        XCTAssertEqual(bus.trace, [
            I2CTransaction(kind: .write, address: 0x68, register: 0x19, bytes: [9, 3]),
            I2CTransaction(kind: .read, address: 0x68, register: 0x19, bytes: [9, 3]),
        ])
    }

    func testRandomFaultsAreReproducibleAndNearTheRate() {
        func pattern(seed: UInt64) -> [Bool] {
            let (bus, _) = makeBus()
            bus.setRandomFaults(rate: 0.2, kind: .bus, seed: seed)
            return (0..<2000).map { _ in (try? bus.readByte(address: mpu, register: WHO_AM_I)) == nil }
        }
        let a = pattern(seed: 7), b = pattern(seed: 7), c = pattern(seed: 8)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        let failures = a.filter { $0 }.count
        XCTAssertGreaterThan(failures, 320)
        XCTAssertLessThan(failures, 480)
    }
}
