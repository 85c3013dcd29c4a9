#if canImport(Glibc)
import Glibc
#endif
import XCTest
import TiltboardDrivers
@testable import TiltboardLinux

// Functionality masks, re-declared from linux/i2c.h.
private let FUNC_I2C: UInt = 0x0000_0001
/// What the kernel's i2c-stub reports: SMBus up to I2C-block, no plain I²C.
private let FUNC_I2C_STUB: UInt = 0x0C7F_0000
private let FUNC_BYTE_DATA_ONLY: UInt = 0x0018_0000
private let I2C_M_RD_FLAG: UInt16 = 0x0001

final class LinuxI2CBusTests: XCTestCase {
    private func expected(_ range: Range<Int>, from register: UInt8) -> [UInt8] {
        range.map { (register &+ UInt8($0)) ^ 0xA5 }
    }

    // MARK: Plain I²C adapter

    func testReadIsOneCombinedTransferWithoutSlaveSelect() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C | FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
        XCTAssertEqual(bus.name, "/dev/i2c-1")
        let data = try bus.read(address: 0x68, register: 0x3B, count: 14)
        XCTAssertEqual(data, expected(0..<14, from: 0x3B))
        XCTAssertEqual(fake.calls, [
            .open("/dev/i2c-1"),
            .ioctl(I2C_FUNCS_REQUEST, nil),
            .rdwr([RecordedMessage(address: 0x68, flags: 0, length: 1, written: [0x3B]),
                   RecordedMessage(address: 0x68, flags: I2C_M_RD_FLAG, length: 14, written: [])]),
        ])
    }

    func testWriteIsOneMessageWithTheRegisterFirst() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C)
        let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
        try bus.write(address: 0x53, register: 0x1E, bytes: [0xFD, 0x04, 0x80])
        XCTAssertEqual(fake.calls.last, .rdwr([RecordedMessage(address: 0x53, flags: 0, length: 4, written: [0x1E, 0xFD, 0x04, 0x80])]))
        XCTAssertEqual(fake.calls.count, 3)
    }

    func testLargeFIFOReadIsStillOneTransfer() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C)
        let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
        var buffer = [UInt8](repeating: 0, count: 980)
        try buffer.withUnsafeMutableBytes { try bus.read(address: 0x68, register: 0x74, into: $0, pattern: .repeating(period: 1)) }
        XCTAssertEqual(fake.calls.count, 3)
        XCTAssertEqual(fake.calls.last, .rdwr([RecordedMessage(address: 0x68, flags: 0, length: 1, written: [0x74]),
                                               RecordedMessage(address: 0x68, flags: I2C_M_RD_FLAG, length: 980, written: [])]))
    }

    // MARK: SMBus-only adapter (i2c-stub)

    func testSMBusReadOf64BytesIsTwo32ByteBlocksAndSelectsTheAddressOnce() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        XCTAssertEqual(bus.readMode, .smbusBlock)
        XCTAssertEqual(try bus.read(address: 0x68, register: 0x10, count: 64), expected(0..<64, from: 0x10))
        XCTAssertEqual(try bus.read(address: 0x68, register: 0x75, count: 1), [UInt8(0x75 ^ 0xA5)])
        _ = try bus.read(address: 0x53, register: 0x00, count: 1)
        XCTAssertEqual(Array(fake.calls.dropFirst(2)), [
            .ioctl(I2C_SLAVE_REQUEST, 0x68),
            .smbusReadBlock(0x10, 32), .smbusReadBlock(0x30, 32),
            .smbusReadBlock(0x75, 1),
            .ioctl(I2C_SLAVE_REQUEST, 0x53),
            .smbusReadBlock(0x00, 1),
        ])
    }

    func testSMBusReadOfRollingFramesSplitsAtWholeFramesFromTheSameSubAddress() throws {
        // A pointer that rolls back every 6 bytes (an ST part's FIFO through OUT_X_L with bit 7
        // set): 30-byte pieces, each from the same sub-address, so no frame is cut.
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        var buffer = [UInt8](repeating: 0, count: 72)
        try buffer.withUnsafeMutableBytes { try bus.read(address: 0x18, register: 0xA8, into: $0, pattern: .repeating(period: 6)) }
        XCTAssertEqual(Array(fake.calls.dropFirst(3)),
                       [.smbusReadBlock(0xA8, 30), .smbusReadBlock(0xA8, 30), .smbusReadBlock(0xA8, 12)])
    }

    func testSMBusFIFOReadRepeatsTheRegisterInEveryChunk() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        var buffer = [UInt8](repeating: 0, count: 70)
        try buffer.withUnsafeMutableBytes { try bus.read(address: 0x68, register: 0x74, into: $0, pattern: .repeating(period: 1)) }
        XCTAssertEqual(Array(fake.calls.dropFirst(3)),
                       [.smbusReadBlock(0x74, 32), .smbusReadBlock(0x74, 32), .smbusReadBlock(0x74, 6)])
    }

    func testSMBusWriteIsChunkedAt32Bytes() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        let bytes = (0..<40).map { UInt8($0) }
        try bus.write(address: 0x68, register: 0x06, bytes: bytes)
        XCTAssertEqual(Array(fake.calls.dropFirst(2)), [
            .ioctl(I2C_SLAVE_REQUEST, 0x68),
            .smbusWriteBlock(0x06, Array(bytes[0..<32])),
            .smbusWriteBlock(0x26, Array(bytes[32..<40])),
        ])
    }

    func testByteDataOnlyAdapterReadsAndWritesByteByByte() throws {
        let fake = FakeAdapter(functionality: FUNC_BYTE_DATA_ONLY)
        let bus = try LinuxI2CBus(path: "/dev/i2c-3", io: fake)
        XCTAssertEqual(try bus.read(address: 0x53, register: 0x32, count: 3), expected(0..<3, from: 0x32))
        try bus.write(address: 0x53, register: 0x2D, bytes: [0x08, 0x00])
        XCTAssertEqual(Array(fake.calls.dropFirst(2)), [
            .ioctl(I2C_SLAVE_REQUEST, 0x53),
            .smbusReadByte(0x32), .smbusReadByte(0x33), .smbusReadByte(0x34),
            .smbusWriteByte(0x2D, 0x08), .smbusWriteByte(0x2E, 0x00),
        ])
    }

    func testAdapterWithoutUsableTransfersIsRefusedAndClosed() {
        let fake = FakeAdapter(functionality: 0x0000_0002)
        XCTAssertThrowsError(try LinuxI2CBus(path: "/dev/i2c-9", io: fake)) { error in
            XCTAssertEqual((error as? I2CError)?.kind, .unsupported)
            XCTAssertEqual((error as? I2CError)?.refusal, .noUsableTransfers(functionality: 2))
        }
        XCTAssertEqual(fake.calls.last, .close(7))
    }

    func testClosesTheDeviceWhenReleased() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C)
        do { _ = try LinuxI2CBus(path: "/dev/i2c-1", io: fake) }
        XCTAssertEqual(fake.calls.last, .close(7))
    }

    func testCloseClosesOnceAndLaterTransfersFailWithoutASyscall() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C)
        do {
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
            bus.close()
            bus.close()
            let calls = fake.calls.count
            XCTAssertThrowsError(try bus.read(address: 0x68, register: 0x75, count: 1)) { error in
                XCTAssertEqual((error as? I2CError)?.errno, EBADF, "\(error)")
            }
            XCTAssertThrowsError(try bus.writeByte(address: 0x68, register: 0x6B, value: 0x40))
            XCTAssertEqual(fake.calls.count, calls)
        }
        // Released after its close: still closed once.
        XCTAssertEqual(fake.calls.filter { $0 == .close(7) }.count, 1)
    }

    // MARK: Errors

    func testErrnoMappingOnBothPaths() throws {
        let table: [(Int32, I2CError.Kind, String)] = [
            (ENXIO, .noAcknowledgeAddress, "No such device or address"),
            (ENODEV, .noAcknowledgeAddress, "No such device"),
            (EREMOTEIO, .noAcknowledgeAddress, "Remote I/O error"),
            (EIO, .bus, "Input/output error"),
            (EBUSY, .bus, "Device or resource busy"),
            (EAGAIN, .arbitrationLost, "Resource temporarily unavailable"),
            (ETIMEDOUT, .timeout, "Connection timed out"),
            (EOPNOTSUPP, .unsupported, "Operation not supported"),
            (EPERM, .permissionDenied, "Operation not permitted"),
            (EINVAL, .other, "Invalid argument"),
        ]
        for functionality in [FUNC_I2C, FUNC_I2C_STUB] {
            let fake = FakeAdapter(functionality: functionality)
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
            for (errno, kind, text) in table {
                fake.failures = [errno]
                XCTAssertThrowsError(try bus.read(address: 0x68, register: 0x3B, count: 14)) { error in
                    XCTAssertEqual(error as? I2CError, I2CError(kind: kind, device: "/dev/i2c-1", address: 0x68,
                                                                register: 0x3B, errno: errno, detail: text))
                }
                // The failure is transient: the next read goes through.
                XCTAssertEqual(try bus.read(address: 0x68, register: 0x3B, count: 14), expected(0..<14, from: 0x3B))
            }
        }
    }

    func testNackMessageNamesDeviceAddressRegisterAndErrno() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C)
        let bus = try LinuxI2CBus(path: "/dev/i2c-1", io: fake)
        fake.failures = [EREMOTEIO]
        XCTAssertThrowsError(try bus.writeByte(address: 0x68, register: 0x6B, value: 0x80)) { error in
            XCTAssertEqual(error as? I2CError, I2CError(kind: .noAcknowledgeAddress, device: "/dev/i2c-1", address: 0x68, register: 0x6B,
                                                        errno: EREMOTEIO, detail: "Remote I/O error"))
        }
    }

    func testOpenFailuresSayWhatTheKernelSaid() {
        let missing = FakeAdapter(functionality: FUNC_I2C)
        missing.openErrno = ENOENT
        XCTAssertThrowsError(try LinuxI2CBus(path: "/dev/i2c-7", io: missing)) { error in
            XCTAssertEqual(error as? I2CError, I2CError(kind: .noSuchBus, device: "/dev/i2c-7", errno: ENOENT,
                                                        detail: "No such file or directory"))
        }
        let denied = FakeAdapter(functionality: FUNC_I2C)
        denied.openErrno = EACCES
        XCTAssertThrowsError(try LinuxI2CBus(path: "/dev/i2c-1", io: denied)) { error in
            XCTAssertEqual((error as? I2CError)?.kind, .permissionDenied)
            XCTAssertEqual((error as? I2CError)?.errno, EACCES)
            XCTAssertEqual((error as? I2CError)?.detail, "Permission denied")
        }
    }

    func testSlaveSelectFailureIsRetriedOnTheNextTransfer() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        fake.slaveFailures = [EBUSY]
        XCTAssertThrowsError(try bus.read(address: 0x68, register: 0x75, count: 1)) { error in
            XCTAssertEqual(error as? I2CError, I2CError(kind: .bus, device: "/dev/i2c-0", address: 0x68, errno: EBUSY,
                                                        detail: "Device or resource busy"))
        }
        XCTAssertEqual(try bus.read(address: 0x68, register: 0x75, count: 1), [UInt8(0x75 ^ 0xA5)])
        XCTAssertEqual(Array(fake.calls.dropFirst(2)),
                       [.ioctl(I2C_SLAVE_REQUEST, 0x68), .ioctl(I2C_SLAVE_REQUEST, 0x68), .smbusReadBlock(0x75, 1)])
    }

    func testShortSMBusReadIsAnError() throws {
        let fake = FakeAdapter(functionality: FUNC_I2C_STUB)
        let bus = try LinuxI2CBus(path: "/dev/i2c-0", io: fake)
        fake.shortRead = 3
        XCTAssertThrowsError(try bus.read(address: 0x68, register: 0x3B, count: 14)) { error in
            XCTAssertEqual(error as? I2CError, I2CError(kind: .noAcknowledgeData, device: "/dev/i2c-0", address: 0x68,
                                                        register: 0x3B, cause: .shortRead(read: 3, expected: 14)))
        }
    }

    func testInterruptedCallsAreRetried() {
        var attempts = 0
        let result = retryingNegatedEINTR {
            attempts += 1
            return attempts < 3 ? -EINTR : 5
        }
        XCTAssertEqual(result, 5)
        XCTAssertEqual(attempts, 3)
        XCTAssertEqual(retryingNegatedEINTR { -EIO }, -EIO)
    }

    // MARK: Bus listing

    func testAvailableBusesInNumericOrder() throws {
        let dir = "/tmp/tiltboard-buses-\(getpid())"
        mkdir(dir, 0o755)
        defer {
            for name in ["i2c-10", "i2c-2", "i2c-1", "i2c-x", "spidev0.0"] { unlink("\(dir)/\(name)") }
            rmdir(dir)
        }
        for name in ["i2c-10", "i2c-2", "i2c-1", "i2c-x", "spidev0.0"] {
            let fd = creat("\(dir)/\(name)", 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        XCTAssertEqual(LinuxI2CBus.availableBuses(in: dir), ["\(dir)/i2c-1", "\(dir)/i2c-2", "\(dir)/i2c-10"])
        XCTAssertEqual(LinuxI2CBus.availableBuses(in: "\(dir)/missing"), [])
    }
}
