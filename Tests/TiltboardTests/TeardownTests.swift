import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// What an opened board gives back: once, newest first, from any thread, and also when its open
/// fails part-way; seen through a simulated board whose parts report what is done to them.
final class TeardownTests: XCTestCase {
    /// MPU-6050 register map rev. 4.2, 4.28: PWR_MGMT_1 and its SLEEP bit.
    private let powerManagement1: UInt8 = 0x6B
    private let sleepBit: UInt8 = 0x40

    func testActionsRunOnceNewestFirst() {
        let teardown = Teardown()
        let events = Events()
        for name in ["a", "b", "c"] { teardown.add { events.add(name) } }
        XCTAssertFalse(teardown.hasRun)
        teardown.run()
        teardown.run()
        XCTAssertEqual(events.list, ["c", "b", "a"])
        XCTAssertTrue(teardown.hasRun)
        // Registered after the run: nothing will run it later, so it runs at once.
        teardown.add { events.add("late") }
        XCTAssertEqual(events.list, ["c", "b", "a", "late"])
    }

    func testConcurrentRunsRunEachActionOnceAndReturnWhenDone() {
        let teardown = Teardown()
        let events = Events()
        for i in 0..<50 { teardown.add { events.add("\(i)") } }
        let counts = Events()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            teardown.run()
            // Whichever call returns, all fifty are done by then.
            counts.add("\(events.list.count)")
        }
        XCTAssertEqual(events.list, (0..<50).reversed().map { "\($0)" })
        XCTAssertEqual(counts.list, Array(repeating: "50", count: 8))
    }

    func testCloseGivesBackEveryPartNewestFirstOnce() throws {
        let folder = try makeScratchFolder(self)
        let (session, backend, events) = try open(folder: folder)
        let line = try XCTUnwrap(try session.openMotor())
        XCTAssertNotNil(try session.openInterruptLine())
        session.onClose { events.add("gamepad closed") }
        try line.set(active: true)
        XCTAssertEqual(try backend.base.bus.readByte(address: 0x68, register: powerManagement1) & sleepBit, 0, "sampling while open")
        events.list = []

        session.close()
        session.close()
        XCTAssertTrue(session.isClosed)
        XCTAssertEqual(events.list, ["gamepad closed", "interrupt released", "motor released",
                                     "write 0x6B \(hex(0x41))", "bus closed"])
        let motor = try XCTUnwrap(backend.motor)
        XCTAssertTrue(motor.isReleased)
        XCTAssertFalse(motor.isActive)
        XCTAssertTrue(try XCTUnwrap(backend.pin).isReleased)
        XCTAssertTrue(backend.base.bus.isClosed)
        XCTAssertEqual(try backend.base.bus.readByte(address: 0x68, register: powerManagement1) & sleepBit, sleepBit, "asleep after close")
        // The motor log ends with the line driven inactive.
        let log = try String(contentsOfFile: folder + "/motor.log", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(log.count, 2)
        XCTAssertEqual(log.map { $0.split(separator: " ").last }, ["1", "0"])
        // Registered after the close: runs at once.
        session.onClose { events.add("late") }
        XCTAssertEqual(events.list.last, "late")
        XCTAssertEqual(events.list.count, 6)
    }

    func testAnOpenThatFailsAfterTheSensorPutsItToSleepAndClosesTheBus() throws {
        let folder = try makeScratchFolder(self)
        let profile = folder + "/p.json"
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: profile))
        var backend: RecordingBackend?
        XCTAssertThrowsError(try open(folder: folder, profilePath: profile, keep: { backend = $0 })) { error in
            XCTAssertTrue(error is ProfileError, "\(error)")
        }
        let opened = try XCTUnwrap(backend)
        XCTAssertEqual(opened.events.list.suffix(2), ["write 0x6B \(hex(0x41))", "bus closed"])
        XCTAssertEqual(opened.events.list.filter { $0 == "bus closed" }.count, 1)
        XCTAssertTrue(opened.base.bus.isClosed)
        XCTAssertEqual(try opened.base.bus.readByte(address: 0x68, register: powerManagement1) & sleepBit, sleepBit)
        XCTAssertNil(opened.motor, "the motor line was never requested")
    }

    func testAnOpenThatFailsToIdentifyTheChipOnlyClosesTheBus() throws {
        let folder = try makeScratchFolder(self)
        var backend: RecordingBackend?
        // The board file names an ADXL345 where the simulated MPU-6050 answers.
        XCTAssertThrowsError(try open(folder: folder, sensorChip: .adxl345, keep: { backend = $0 }))
        let opened = try XCTUnwrap(backend)
        XCTAssertEqual(opened.events.list, ["bus closed"])
    }

    // MARK: - A simulated board reporting what is done to its parts

    private func open(folder: String, profilePath: String? = nil, sensorChip: ChipKind? = nil,
                      keep: (RecordingBackend) -> Void = { _ in }) throws -> (BoardSession, RecordingBackend, Events) {
        var board = BoardDescription.builtInSimulated(script: "flat")
        board.simulation?.motorLog = folder + "/motor.log"
        board.interrupt = .init(line: .init(chip: "simulated", line: .offset(4)))
        let clock = ManualClock()
        let backend = RecordingBackend(base: try SimulatedBoard(board: board, clock: clock))
        keep(backend)
        if let sensorChip { board.sensor.chip = sensorChip }
        let session = try BoardSession(board: board, backend: backend, clock: clock, profilePath: profilePath ?? folder + "/none.json",
                                       useProfile: profilePath != nil)
        return (session, backend, backend.events)
    }
}

private func hex(_ v: UInt8) -> String { "0x" + String(v, radix: 16, uppercase: true) }

private final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var list: [String] {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
    func add(_ event: String) { lock.lock(); stored.append(event); lock.unlock() }
}

private final class RecordingBackend: BoardBackend {
    let base: SimulatedBoard
    let events = Events()
    private(set) var motor: SimulatedGPIOLine?
    private(set) var pin: SimulatedInterruptPin?
    init(base: SimulatedBoard) { self.base = base }

    func openBus() throws -> I2CBus { RecordingBus(base: base.bus, events: events) }
    func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine {
        let line = try XCTUnwrap(try base.openMotorLine(motor) as? SimulatedGPIOLine)
        self.motor = line
        return RecordingLine(base: line, events: events)
    }
    func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine? {
        let pin = try XCTUnwrap(try base.openInterruptLine(interrupt) as? SimulatedInterruptPin)
        self.pin = pin
        return RecordingPin(base: pin, events: events)
    }
}

/// Records register writes (sub-address and first byte) and the close.
private final class RecordingBus: I2CBus {
    let base: SimulatedI2CBus
    let events: Events
    init(base: SimulatedI2CBus, events: Events) { self.base = base; self.events = events }
    var name: String { base.name }
    func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                  pattern: I2CReadPattern) throws {
        if read.isEmpty, write.count >= 2 { events.add("write \(hex(write[0])) \(hex(write[1]))") }
        try base.transfer(address: address, write: write, read: read, pattern: pattern)
    }
    func close() { events.add("bus closed"); base.close() }
}

private final class RecordingLine: GPIOOutputLine, @unchecked Sendable {
    let base: SimulatedGPIOLine
    let events: Events
    init(base: SimulatedGPIOLine, events: Events) { self.base = base; self.events = events }
    var name: String { base.name }
    func set(active: Bool) throws { try base.set(active: active) }
    func release() { events.add("motor released"); base.release() }
}

private final class RecordingPin: GPIOInputLine, @unchecked Sendable {
    let base: SimulatedInterruptPin
    let events: Events
    init(base: SimulatedInterruptPin, events: Events) { self.base = base; self.events = events }
    var name: String { base.name }
    func makeWakeStop() throws -> WakeStop { try base.makeWakeStop() }
    func waitForEdge(until deadline: UInt64?, on clock: MonotonicClock, stop: WakeStop) throws -> EdgeWait {
        try base.waitForEdge(until: deadline, on: clock, stop: stop)
    }
    func discardQueuedEdges() throws -> Int { try base.discardQueuedEdges() }
    func release() { events.add("interrupt released"); base.release() }
}
