import Foundation
import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// Several boards on one loop thread and one schedule: each keeps its own pipeline, motor,
/// events and end.
///
/// The boards open at clock 1 s (the faults' origin) and the MPU-6050's configuration takes
/// 160 ms of clock time, so loop time = fault time − 0.16 s for the first board.
final class TiltLoopGroupTests: XCTestCase {
    private func session(script: String, faults: [SimulatedFault] = [], clock: MonotonicClock,
                         wrapBus: ((I2CBus) -> I2CBus)? = nil) throws -> BoardSession {
        var board = BoardDescription.builtInSimulated(script: script)
        board.simulation?.noise = false
        board.simulation?.faults = faults
        return try BoardSession(board: board, clock: clock, useProfile: false, wrapBus: wrapBus)
    }

    private func loop(_ session: BoardSession, rate: Double = 100, giveUpAfter: Double = 10,
                      haptics: HapticEngine? = nil) -> TiltLoop {
        var configuration = TiltLoop.Configuration(rateHz: rate)
        configuration.recovery.giveUpAfterSeconds = giveUpAfter
        return session.makeLoop(configuration, haptics: haptics)
    }

    /// Per member: its samples and its sensor events, heard on the loop thread.
    private final class Heard: @unchecked Sendable {
        var outputs: [[PipelineOutput]]
        var events: [[SensorEvent]]
        init(_ count: Int) {
            outputs = Array(repeating: [], count: count)
            events = Array(repeating: [], count: count)
        }
        func observers() -> [[LoopObserver]] {
            outputs.indices.map { i in
                [LoopObserver(sample: { out, _ in self.outputs[i].append(out) },
                              event: { if case let .sensor(e) = $0 { self.events[i].append(e) } })]
            }
        }
    }

    func testAShakeOnTheFirstBoardPlaysOnlyItsMotor() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "shake", clock: clock), try session(script: "flat", clock: clock)]
        let lines = try boards.map { try XCTUnwrap(try $0.openMotor() as? SimulatedGPIOLine) }
        let engines = lines.map { HapticEngine(line: $0, clock: clock) }
        defer { engines.forEach { $0.shutdown() } }
        let group = try TiltLoopGroup([loop(boards[0], haptics: engines[0]), loop(boards[1], haptics: engines[1])])
        let heard = Heard(2)
        let running = group.start(for: .seconds(2), observers: heard.observers())
        XCTAssertNil(running.wait())
        for member in running.members { XCTAssertNil(try member.wait()) }
        XCTAssertEqual(lines[0].changes.map(\.active), [true, false], "the shaken board's motor plays its pulse")
        XCTAssertEqual(lines[1].changes.map(\.active), [], "the other board's motor stays off")
        XCTAssertTrue(heard.outputs[0].contains { $0.shaking })
        XCTAssertFalse(heard.outputs[1].contains { $0.shaking })
        // One schedule: every tick (both ends of the 2 s counted) read both boards, at the same loop time.
        XCTAssertEqual(heard.outputs[0].count, 201)
        XCTAssertEqual(heard.outputs[0].map(\.t), heard.outputs[1].map(\.t))
        XCTAssertEqual(running.members[0].totals.schedule.ticks, 201)
        XCTAssertEqual(running.members[1].totals.schedule.ticks, 201)
        XCTAssertEqual(running.members[1].totals.samples, 201)
    }

    func testEachBoardsMarkerMovesOnlyWithItsOwnTilt() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "flat", clock: clock), try session(script: "tilt-left", clock: clock)]
        let group = try TiltLoopGroup(boards.map { loop($0) })
        let heard = Heard(2)
        group.start(for: .seconds(3.4), observers: heard.observers()).wait()
        let first = try XCTUnwrap(heard.outputs[0].last), second = try XCTUnwrap(heard.outputs[1].last)
        XCTAssertEqual(first.control.x, 0, accuracy: 0.02)
        XCTAssertEqual(first.tilt.rollDeg, 0, accuracy: 1)
        XCTAssertEqual(second.control.x, -1, accuracy: 1e-9)
        XCTAssertEqual(second.tilt.rollDeg, -30, accuracy: 1)
        XCTAssertEqual(heard.outputs[0].count, heard.outputs[1].count)
    }

    /// One thread, one transaction after another: at every tick the first board's transactions,
    /// then the second's, never mixed.
    func testTheBoardsAreReadInPlayerOrderAndTheirTransactionsNeverInterleave() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let log = TransactionLog()
        let boards = try (0..<2).map { i in
            try session(script: "flat", clock: clock, wrapBus: { RecordingBus($0, board: i, log: log) })
        }
        let group = try TiltLoopGroup(boards.map { loop($0) })
        log.clear()
        group.start(for: .seconds(2.5)).wait()
        // Runs of consecutive transactions by the same board.
        var runs: [Int] = []
        for board in log.entries where runs.last != board { runs.append(board) }
        XCTAssertEqual(runs.count, 502, "one run per board per tick")
        XCTAssertEqual(runs, Array(repeating: [0, 1], count: 251).flatMap { $0 })
        // The periodic configuration checks (once a second) stay within their board's run.
        XCTAssertGreaterThan(log.entries.count, 502)
    }

    /// The unplugged board comes back reset: its reconfiguration (the MPU-6050's reset wait and
    /// gyro start, 160 ms of clock time) runs on its restorer's thread, so the other board keeps
    /// every tick.
    func testAFailingBoardIsRiddenOutAloneWhileTheOtherPlaysOn() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "flat", clock: clock),
                      try session(script: "flat", faults: [SimulatedFault(at: 1.0, kind: .unplug, seconds: 0.5)], clock: clock)]
        let loops = boards.map { loop($0) }
        let group = try TiltLoopGroup(loops)
        let heard = Heard(2)
        let running = group.start(for: .seconds(3), observers: heard.observers())
        running.wait()
        XCTAssertEqual(heard.events[0].count, 0, "the first board saw no outage")
        guard heard.events[1].count == 2, case let .lost(lostT, _) = heard.events[1][0], case let .back(backT, true) = heard.events[1][1] else {
            return XCTFail("\(heard.events[1])")
        }
        XCTAssertEqual(lostT, 0.84, accuracy: 0.0101)
        XCTAssertGreaterThan(backT, 1.34 - 0.0101)
        let schedule = running.members[0].totals.schedule
        XCTAssertEqual(schedule.ticks, 301)
        XCTAssertEqual(schedule.missedTicks, 0)
        XCTAssertEqual(heard.outputs[0].count, 301, "the first board sampled at every tick")
        // Back after the 0.5 s unplug and the 160 ms of its reconfiguration, not before.
        XCTAssertGreaterThan(backT, lostT + 0.5 + 0.16 - 0.0101)
        XCTAssertLessThan(heard.outputs[1].count, 301 - 60)
        XCTAssertGreaterThan(heard.outputs[1].count, 200)
        XCTAssertEqual(loops[0].busStatistics, BusStatistics())
        XCTAssertEqual(loops[1].busStatistics.outages, 1)
        XCTAssertEqual(loops[1].busStatistics.reconfigurations, 1)
    }

    func testABoardThatGivesUpEndsAloneWithItsMotorOff() throws {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "flat", clock: clock),
                      try session(script: "flat", faults: [SimulatedFault(at: 1.0, kind: .unplug, seconds: 60)], clock: clock)]
        let line = try XCTUnwrap(try boards[1].openMotor() as? SimulatedGPIOLine)
        let engine = HapticEngine(line: line, clock: clock)
        defer { engine.shutdown() }
        let group = try TiltLoopGroup([loop(boards[0], giveUpAfter: 2), loop(boards[1], giveUpAfter: 2, haptics: engine)])
        let heard = Heard(2)
        let running = group.start(for: .seconds(5), observers: heard.observers())
        XCTAssertNil(running.wait())
        XCTAssertNil(try running.members[0].wait(), "the first board played to the end")
        XCTAssertThrowsError(try running.members[1].wait()) { error in
            let lost = error as? SensorLostError
            XCTAssertEqual(lost?.address, 0x68)
            XCTAssertEqual(lost?.span, .seconds(2))
        }
        XCTAssertEqual(heard.outputs[0].count, 501)
        XCTAssertEqual(heard.events[1].count, 1)
        XCTAssertFalse(line.isActive)
        XCTAssertTrue(running.members[1].isFinished)
    }

    func testStoppingOneMemberEndsItAloneAndTheGroupEndsWithTheLast() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "flat", clock: clock), try session(script: "flat", clock: clock)]
        let group = try TiltLoopGroup(boards.map { loop($0) })
        let holder = GroupHolder()
        let heard = Heard(2)
        var observers = heard.observers()
        observers[0].append(LoopObserver(sample: { _, tick in if tick.index == 49 { holder.running?.members[0].stop() } }))
        observers[1].append(LoopObserver(sample: { _, tick in if tick.index == 149 { holder.running?.members[1].stop() } }))
        holder.running = group.start(observers: observers)
        holder.running?.wait()
        XCTAssertEqual(heard.outputs[0].count, 50)
        XCTAssertEqual(heard.outputs[1].count, 150)
    }

    func testLoopsAtDifferentRatesOrWakingOnMotionCannotRunTogether() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let boards = [try session(script: "flat", clock: clock), try session(script: "flat", clock: clock)]
        XCTAssertThrowsError(try TiltLoopGroup([loop(boards[0], rate: 100), loop(boards[1], rate: 200)])) { error in
            XCTAssertEqual(error as? LoopGroupError, LoopGroupError(.differentRates([100, 200])))
            XCTAssertEqual((error as? CategorizedError)?.category, .invalidRequest)
        }
        XCTAssertThrowsError(try TiltLoopGroup([])) { XCTAssertEqual($0 as? LoopGroupError, LoopGroupError(.noLoops)) }
        var board = BoardDescription.builtInSimulated(script: "flat")
        board.simulation?.noise = false
        board.interrupt = try XCTUnwrap(BoardDescription.load(path: packageRoot + "/Boards/simulated-wake.json").interrupt)
        let waking = try BoardSession(board: board, clock: clock, useProfile: false)
        var configuration = TiltLoop.Configuration(rateHz: 100)
        configuration.wakeOnMotion = WakeOnMotion(line: try waking.wakeLine())
        XCTAssertThrowsError(try TiltLoopGroup([loop(boards[0]), waking.makeLoop(configuration)])) { error in
            XCTAssertEqual(error as? LoopGroupError, LoopGroupError(.wakeOnMotion(player: 2)))
        }
        // Alone, a waking loop is a group of one.
        XCTAssertNoThrow(try TiltLoopGroup([waking.makeLoop(configuration)]))
    }
}

private final class GroupHolder: @unchecked Sendable {
    var running: RunningLoopGroup?
}

/// Which board each transaction was for, in the order they happened.
private final class TransactionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int] = []
    var entries: [Int] { lock.withLock { stored } }
    func add(_ board: Int) { lock.withLock { stored.append(board) } }
    func clear() { lock.withLock { stored.removeAll() } }
}

private final class RecordingBus: I2CBus {
    let base: I2CBus
    let board: Int
    let log: TransactionLog
    init(_ base: I2CBus, board: Int, log: TransactionLog) { self.base = base; self.board = board; self.log = log }
    var name: String { base.name }
    func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer, pattern: I2CReadPattern) throws {
        log.add(board)
        try base.transfer(address: address, write: write, read: read, pattern: pattern)
    }
}
