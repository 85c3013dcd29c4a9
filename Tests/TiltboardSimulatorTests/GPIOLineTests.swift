import Dispatch
import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import XCTest

final class GPIOLineTests: XCTestCase {
    func testRecordsOnlyChangesWithTimes() throws {
        let clock = ManualClock()
        let line = SimulatedGPIOLine(clock: clock)
        XCTAssertEqual(line.name, "simulated motor")
        try line.set(active: false)
        clock.advance(ms: 100)
        try line.set(active: true)
        clock.advance(ms: 30)
        try line.set(active: true)
        clock.advance(ms: 20)
        try line.set(active: false)
        XCTAssertEqual(line.changes.map(\.t), [0.1, 0.15])
        XCTAssertEqual(line.changes.map(\.active), [true, false])
        XCTAssertEqual(line.activeSeconds, 0.05, accuracy: 1e-12)
        XCTAssertFalse(line.isActive)
    }

    func testReleaseDrivesInactiveAndRefusesFurtherUse() throws {
        let clock = ManualClock()
        let line = SimulatedGPIOLine(clock: clock)
        try line.set(active: true)
        clock.advance(ms: 10)
        line.release()
        line.release()
        XCTAssertTrue(line.isReleased)
        XCTAssertFalse(line.isActive)
        XCTAssertEqual(line.changes.map(\.active), [true, false])
        XCTAssertEqual(line.changes.last?.t ?? -1, 0.01, accuracy: 1e-12)
        XCTAssertThrowsError(try line.set(active: true)) { error in
            XCTAssertEqual((error as? GPIOError)?.kind, .io)
        }
    }

    func testOnChangeIsCalledForEachChange() throws {
        final class Log: @unchecked Sendable {
            var entries: [(Double, Bool)] = []
        }
        let log = Log()
        let clock = ManualClock()
        let line = SimulatedGPIOLine(clock: clock)
        line.onChange = { t, active in log.entries.append((t, active)) }
        try line.set(active: true)
        clock.advance(ms: 5)
        try line.set(active: false)
        try line.set(active: false)
        XCTAssertEqual(log.entries.map(\.0), [0, 0.005])
        XCTAssertEqual(log.entries.map(\.1), [true, false])
    }

    func testConcurrentDrivingLosesNothing() {
        let line = SimulatedGPIOLine(clock: ManualClock())
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for k in 0..<500 { try? line.set(active: (k + i) % 2 == 0) }
        }
        let changes = line.changes
        // Every recorded entry is a real change from the one before it.
        for (a, b) in zip(changes, changes.dropFirst()) { XCTAssertNotEqual(a.active, b.active) }
        XCTAssertEqual(changes.first?.active, true)
        XCTAssertEqual(changes.last?.active, line.isActive)
    }
}
