import XCTest
import TiltboardCore
import TiltboardDrivers

/// One expected bus transaction and what the bus does for it.
enum Expect: CustomStringConvertible {
    case read(UInt8, UInt8, [UInt8])
    case readFIFO(UInt8, UInt8, [UInt8])
    case write(UInt8, UInt8, [UInt8])
    case readFails(UInt8, UInt8, count: Int, I2CError)
    case writeFails(UInt8, UInt8, [UInt8], I2CError)

    var description: String {
        switch self {
        case let .read(a, r, reply): return "read \(a.hex) reg \(r.hex) ×\(reply.count)"
        case let .readFIFO(a, r, reply): return "readFIFO \(a.hex) reg \(r.hex) ×\(reply.count)"
        case let .write(a, r, bytes): return "write \(a.hex) reg \(r.hex) \(bytes.map(\.hex))"
        case let .readFails(a, r, n, e): return "read \(a.hex) reg \(r.hex) ×\(n) fails \(e.kind)"
        case let .writeFails(a, r, bytes, e): return "write \(a.hex) reg \(r.hex) \(bytes.map(\.hex)) fails \(e.kind)"
        }
    }
}

/// A bus that plays a script of exact transactions: anything unexpected fails the test and
/// throws; `assertDone()` fails if expectations remain. Records the clock at every transaction.
final class ScriptedBus: I2CBus {
    let name: String
    let clock: ManualClock
    private(set) var pending: [Expect] = []
    /// Clock reading (ns) at each transaction, in order.
    private(set) var times: [UInt64] = []
    private(set) var transactions = 0

    init(name: String = "/dev/i2c-1", clock: ManualClock) {
        self.name = name; self.clock = clock
    }

    func expect(_ steps: Expect...) { pending += steps }
    func expect(_ steps: [Expect]) { pending += steps }

    func assertDone(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(pending.isEmpty, "unused expectations: \(pending)", file: file, line: line)
    }

    private func next(_ what: String) throws -> Expect {
        times.append(clock.nowNanoseconds())
        transactions += 1
        guard !pending.isEmpty else {
            XCTFail("unexpected transaction: \(what)")
            throw I2CError(kind: .other, device: name, detail: "unexpected transaction")
        }
        return pending.removeFirst()
    }

    private func mismatch(_ got: String, _ wanted: Expect) -> I2CError {
        XCTFail("got \(got), expected \(wanted)")
        return I2CError(kind: .other, device: name, detail: "script mismatch")
    }

    /// Write-only transfers are `write`s (the first byte the register); a sub-address byte then a
    /// read is a `read`, or a `readFIFO` when the chip's pattern repeats a register.
    func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                  pattern: I2CReadPattern) throws {
        let register = write.first ?? 0
        if read.isEmpty {
            try self.write(address: address, register: register, bytes: UnsafeRawBufferPointer(rebasing: write.dropFirst()))
        } else if case .repeating = pattern {
            try readFIFO(address: address, register: register, into: read)
        } else {
            try self.read(address: address, register: register, into: read)
        }
    }

    private func read(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        let got = "read \(address.hex) reg \(register.hex) ×\(buffer.count)"
        let e = try next(got)
        switch e {
        case let .read(a, r, reply) where a == address && r == register && reply.count == buffer.count:
            for i in 0..<reply.count { buffer[i] = reply[i] }
        case let .readFails(a, r, n, error) where a == address && r == register && n == buffer.count:
            throw error
        default:
            throw mismatch(got, e)
        }
    }

    private func readFIFO(address: UInt8, register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws {
        let got = "readFIFO \(address.hex) reg \(register.hex) ×\(buffer.count)"
        let e = try next(got)
        guard case let .readFIFO(a, r, reply) = e, a == address, r == register, reply.count == buffer.count else {
            throw mismatch(got, e)
        }
        for i in 0..<reply.count { buffer[i] = reply[i] }
    }

    private func write(address: UInt8, register: UInt8, bytes: UnsafeRawBufferPointer) throws {
        let data = Array(bytes)
        let got = "write \(address.hex) reg \(register.hex) \(data.map(\.hex))"
        let e = try next(got)
        switch e {
        case let .write(a, r, expected) where a == address && r == register && expected == data:
            return
        case let .writeFails(a, r, expected, error) where a == address && r == register && expected == data:
            throw error
        default:
            throw mismatch(got, e)
        }
    }
}

/// Big-endian words as bytes, for MPU-6050 replies.
func be(_ words: Int16...) -> [UInt8] {
    words.flatMap { [UInt8(truncatingIfNeeded: UInt16(bitPattern: $0) >> 8), UInt8(truncatingIfNeeded: $0)] }
}

/// Little-endian words as bytes, for ADXL345 replies.
func le(_ words: Int16...) -> [UInt8] {
    words.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: UInt16(bitPattern: $0) >> 8)] }
}

func assertThrows<E: Error & Equatable>(_ expected: E, file: StaticString = #filePath, line: UInt = #line,
                                        _ body: () throws -> Void) {
    do {
        try body()
        XCTFail("expected \(expected) to be thrown", file: file, line: line)
    } catch let error as E {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}
