import XCTest
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// The tilt loop on a manual clock while the simulated bus fails and the chip resets.
///
/// The board opens at clock 1 s (the faults' origin) and the MPU-6050's configuration takes
/// 160 ms of clock time (reset 100 ms, then 60 ms for the gyro), so loop time = fault time − 0.16 s.
final class BusRecoveryTests: XCTestCase {
    private struct Run {
        var outputs: [PipelineOutput] = []
        var events: [SensorEvent] = []
        var ticks: UInt64 = 0
        var missed: UInt64 = 0
        var stats = BusStatistics()
        var error: Error?
    }

    private func open(chip: ChipKind = .mpu6050, script: String = "flat", faults: [SimulatedFault],
                      rate: Double? = nil, fifo: Bool? = nil, clock: ManualClock) throws -> BoardSession {
        var board = BoardDescription.builtInSimulated(chip: chip, script: script)
        board.simulation?.noise = false
        board.simulation?.faults = faults
        return try BoardSession(board: board, clock: clock, useProfile: false, rateHz: rate, fifo: fifo)
    }

    private func run(_ session: BoardSession, seconds: Double, rate: Double = 100, haptics: HapticEngine? = nil,
                     giveUpAfter: Double = 10,
                     each: @escaping (PipelineOutput) -> Void = { _ in },
                     onEvent: @escaping (SensorEvent) -> Void = { _ in }) -> Run {
        var configuration = TiltLoop.Configuration(rateHz: rate)
        configuration.recovery.giveUpAfterSeconds = giveUpAfter
        let loop = session.makeLoop(configuration, haptics: haptics)
        nonisolated(unsafe) var result = Run()
        loop.observe(LoopObserver(event: { event in
            guard case let .sensor(event) = event else { return }
            result.events.append(event)
            onEvent(event)
        }))
        do {
            _ = try loop.start(for: .seconds(seconds), observers: [LoopObserver(sample: { out, _ in
                result.outputs.append(out)
                each(out)
            })]).wait()
        } catch {
            result.error = error
        }
        let stats = loop.scheduler.statistics
        result.ticks = stats.ticks
        result.missed = stats.missedTicks
        result.stats = loop.busStatistics
        return result
    }

    /// Registers of the simulated chip, read behind the driver's back.
    private func registers(_ session: BoardSession, _ first: UInt8, _ count: Int) throws -> [UInt8] {
        try XCTUnwrap(session.simulatedBus).read(address: session.board.sensor.address, register: first, count: count)
    }

    private func stats(_ errors: Int, _ outages: Int, _ reconfigurations: Int) -> BusStatistics {
        var s = BusStatistics()
        s.busErrors = errors; s.outages = outages; s.reconfigurations = reconfigurations
        return s
    }

    func testANackIsRiddenOutOnScheduleWithNoSamplesAndTheMotorOff() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [SimulatedFault(at: 1.0, kind: .nack, seconds: 0.5)], clock: clock)
        let line = SimulatedGPIOLine(clock: clock)
        let engine = HapticEngine(line: line, clock: clock, cap: MotorCapSettings(maxOnSeconds: 5), startsThread: false)
        defer { engine.shutdown() }
        engine.play(.pulse(ms: 3000))
        engine.service(now: clock.nowNanoseconds())
        XCTAssertTrue(line.isActive)
        nonisolated(unsafe) var motorOnWhenLost: Bool?
        let r = run(session, seconds: 3, haptics: engine, onEvent: { event in
            guard case .lost = event else { return }
            engine.service(now: clock.nowNanoseconds())
            motorOnWhenLost = line.isActive
        })
        XCTAssertNil(r.error)
        XCTAssertEqual(motorOnWhenLost, false, "the motor must be off once the sensor is lost")
        // Clock 2.0…2.5 s is loop time 0.84…1.34 s: lost at the first tick in it, back at the first after.
        XCTAssertEqual(r.events.count, 2)
        guard case let .lost(lostT, reason) = r.events.first, case let .back(backT, reconfigured) = r.events.last else {
            return XCTFail("\(r.events)")
        }
        XCTAssertEqual(lostT, 0.84, accuracy: 1e-9)
        XCTAssertEqual((reason as? I2CError)?.errno, 121, "\(reason)")
        XCTAssertEqual(backT, 1.34, accuracy: 1e-9)
        XCTAssertFalse(reconfigured)
        // The schedule held; every tick from 0.84 to 1.34 s produced nothing, every other one a sample.
        XCTAssertEqual(r.ticks, 301)
        XCTAssertEqual(r.missed, 0)
        XCTAssertEqual(r.outputs.count, 301 - 51)
        XCTAssertFalse(r.outputs.contains { $0.t > 0.835 && $0.t < 1.345 })
        XCTAssertFalse(r.outputs.contains { $0.accel == .zero })
        // Three attempts at 0.84 s, then one look for the chip at each of the 49 ticks to 1.33 s.
        XCTAssertEqual(r.stats, stats(52, 1, 0))
    }

    func testTheMarkerResumesWhereItWasAfterAnOutage() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        // tilt-left rotates from 0.5 s to 1.5 s: the marker is moving left during the gap.
        let session = try open(script: "tilt-left", faults: [SimulatedFault(at: 0.9, kind: .nack, seconds: 0.3)], clock: clock)
        let r = run(session, seconds: 2)
        let gap = try XCTUnwrap(zip(r.outputs, r.outputs.dropFirst()).first { $1.t - $0.t > 0.1 })
        XCTAssertEqual(gap.0.t, 0.73, accuracy: 1e-9)
        XCTAssertEqual(gap.1.t, 1.05, accuracy: 1e-9)
        // Moving: the gap at this speed would carry the marker a good way.
        XCTAssertLessThan(gap.0.control.vx * 0.3, -0.1)
        // It resumes from where it was: no step over the gap, for marker and tilt alike.
        XCTAssertEqual(gap.1.control.x, gap.0.control.x, accuracy: Swift.abs(gap.0.control.vx) * 0.011)
        XCTAssertEqual(gap.1.tilt.rollDeg, gap.0.tilt.rollDeg, accuracy: 0.5)
    }

    func testAResetChipIsNoticedAtItsFirstZeroSampleAndReconfiguredWithItsOffsets() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [SimulatedFault(at: 1.0, kind: .reset)], clock: clock)
        let identity = session.profileIdentity
        let profile = CalibrationProfile(
            board: identity, createdAt: "2026-11-23T21:00:00Z", sampleCount: 100, noiseMg: .zero, neutral: .level,
            sensor: .init(offsetG: Vector3(0.05, -0.03, 0.02), scale: .one, gyroBiasDps: Vector3(1.5, -2, 0.5),
                          residualMg: 1, writtenToChip: true))
        try session.apply(profile: profile)
        let offsets = try registers(session, 0x06, 6) + registers(session, 0x13, 6)
        let configuration = try registers(session, 0x19, 4) + registers(session, 0x6A, 2)
        XCTAssertNotEqual(Array(offsets[6...]), [0, 0, 0, 0, 0, 0], "gyro offsets programmed")
        XCTAssertEqual(configuration, [9, 3, 0x08, 0x00, 0x00, 0x01])

        let r = run(session, seconds: 2)
        XCTAssertNil(r.error)
        XCTAssertEqual(r.events.count, 2)
        guard case let .lost(lostT, reason) = r.events.first, case let .back(backT, reconfigured) = r.events.last else {
            return XCTFail("\(r.events)")
        }
        XCTAssertEqual(lostT, 0.84, accuracy: 1e-9)
        XCTAssertEqual(reason as? SensorError, .configurationLost(register: 0x6B, configured: 0x01, read: 0x40, bus: "simulated", address: 0x68))
        XCTAssertEqual(backT, 1.0, accuracy: 1e-9, "reconfiguring takes the driver's 160 ms")
        XCTAssertTrue(reconfigured)
        // The zero sample that gave the reset away never reached the pipeline.
        XCTAssertFalse(r.outputs.contains { $0.accel == .zero })
        XCTAssertFalse(r.outputs.contains { $0.t > 0.835 && $0.t < 0.995 })
        XCTAssertEqual(r.stats, stats(0, 1, 1))
        XCTAssertEqual(r.missed, 15, "the ticks spent reconfiguring")
        XCTAssertEqual(try registers(session, 0x06, 6) + registers(session, 0x13, 6), offsets)
        XCTAssertEqual(try registers(session, 0x19, 4) + registers(session, 0x6A, 2), configuration)
    }

    func testTheADXL345ComesBackMeasuringWithItsOffsetsAfterAnUnplug() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(chip: .adxl345, faults: [SimulatedFault(at: 1.0, kind: .unplug, seconds: 2)], clock: clock)
        let profile = CalibrationProfile(
            board: session.profileIdentity, createdAt: "2026-11-23T21:00:00Z", sampleCount: 100, noiseMg: .zero, neutral: .level,
            sensor: .init(offsetG: Vector3(0.0625, -0.03125, 0.046875), scale: .one, residualMg: 1, writtenToChip: true))
        try session.apply(profile: profile)
        let offsets = try registers(session, 0x1E, 3)
        XCTAssertEqual(offsets, [0xFC, 0x02, 0xFD])
        let r = run(session, seconds: 4)
        XCTAssertNil(r.error)
        guard r.events.count == 2, case .lost = r.events[0], case let .back(backT, true) = r.events[1] else {
            return XCTFail("\(r.events)")
        }
        // ADXL345 configuration takes 1.1 ms + one 10 ms period, so the loop started 11.1 ms after
        // the board opened: the chip answers from the tick at 2.99 s, configured 11.1 ms later.
        XCTAssertEqual(backT, 2.99 + 0.0111, accuracy: 1e-9)
        XCTAssertEqual(try registers(session, 0x1E, 3), offsets)
        XCTAssertEqual(try registers(session, 0x2C, 2), [0x0A, 0x08], "100 Hz, measuring")
        XCTAssertEqual(try registers(session, 0x31, 1), [0x08], "full resolution")
        XCTAssertEqual(r.stats.outages, 1)
        XCTAssertEqual(r.stats.reconfigurations, 1)
        XCTAssertFalse(r.outputs.contains { $0.accel == .zero })
    }

    func testAFailedReadIsRetriedWithinTheTickAndThenTheChipIsChecked() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [], clock: clock)
        let bus = try XCTUnwrap(session.simulatedBus)
        let r = run(session, seconds: 1, each: { out in
            guard Swift.abs(out.t - 0.5) < 1e-9 else { return }
            bus.recordsTrace = true
            bus.injectFault(.noAcknowledgeAddress, count: 2)
        })
        XCTAssertTrue(r.events.isEmpty, "\(r.events)")
        XCTAssertEqual(r.outputs.count, Int(r.ticks), "every tick gave its sample")
        XCTAssertEqual(r.stats, stats(2, 0, 0))
        let tick = bus.trace.prefix(5).map(\.description)
        XCTAssertEqual(tick, ["read 0x68 reg 0x3b [] failed: noAcknowledgeAddress",
                              "read 0x68 reg 0x3b [] failed: noAcknowledgeAddress",
                              bus.trace[2].description,
                              "read 0x68 reg 0x6b [0x01]",
                              bus.trace[4].description])
        XCTAssertEqual(bus.trace[2].register, 0x3B)
        XCTAssertEqual(bus.trace[2].bytes.count, 14)
        XCTAssertEqual(bus.trace[4].register, 0x3B, "the next tick reads the sample alone")
    }

    func testAResetWithoutABusErrorOrZeroDataIsFoundByThePeriodicCheck() throws {
        // What the HIL does with i2cset: PWR_MGMT_1 back at 0x40, the data registers left as they were.
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [], clock: clock)
        let bus = try XCTUnwrap(session.simulatedBus)
        let r = run(session, seconds: 2, each: { out in
            if Swift.abs(out.t - 0.3) < 1e-9 { try? bus.writeByte(address: 0x68, register: 0x6B, value: 0x40) }
        })
        XCTAssertEqual(r.events.count, 2)
        guard case let .lost(lostT, _) = r.events.first, case .back(_, true) = r.events.last else {
            return XCTFail("\(r.events)")
        }
        XCTAssertEqual(lostT, 1.0, accuracy: 1e-9, "one check a second, from the loop's start")
        XCTAssertEqual(try registers(session, 0x6B, 1), [0x01])
        XCTAssertEqual(r.stats, stats(0, 1, 1))
    }

    func testAnEmptyFIFOForTwoSamplePeriodsIsChecked() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [SimulatedFault(at: 1.0, kind: .reset)], rate: 1000, fifo: true, clock: clock)
        let r = run(session, seconds: 2, rate: 200)
        guard r.events.count == 2, case let .lost(lostT, _) = r.events[0], case .back(_, true) = r.events[1] else {
            return XCTFail("\(r.events)")
        }
        // The reset empties the FIFO at loop time 0.84 s, and that tick finds it empty with the
        // last batch a whole tick (five sample periods) old.
        XCTAssertEqual(lostT, 0.84, accuracy: 1e-9)
        XCTAssertEqual(try registers(session, 0x6A, 2), [0x40, 0x01], "FIFO on, awake")
    }

    func testABusFailureWhileAsleepOnThePinWakesTheLoopWhichRidesItOut() throws {
        // Still for 4 s, then a shake: the loop sleeps on the pin from about 2 s, and the shake's
        // edge finds the bus failing (4.0…4.3 s), so the look at the chip's flag fails.
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        var board = BoardDescription.builtInSimulated(script: packageRoot + "/Boards/scripts/rest-shake-rest.json")
        board.simulation?.faults = [SimulatedFault(at: 3.95, kind: .nack, seconds: 0.35)]
        board.interrupt = .init(line: .init(chip: "simulated", line: .offset(4)))
        let session = try BoardSession(board: board, clock: clock, useProfile: false)
        var configuration = TiltLoop.Configuration(rateHz: 100)
        configuration.wakeOnMotion = WakeOnMotion(line: try session.wakeLine())
        let loop = session.makeLoop(configuration, haptics: nil)
        nonisolated(unsafe) var wakes: [WakeEvent] = []
        nonisolated(unsafe) var events: [SensorEvent] = []
        loop.observe(LoopObserver(event: { event in
            switch event {
            case let .wake(wake): wakes.append(wake)
            case let .sensor(sensor): events.append(sensor)
            }
        }))
        nonisolated(unsafe) var shakes = 0
        _ = try loop.start(for: .seconds(6), observers: [LoopObserver(sample: { out, _ in if out.shakeEvent?.phase == .started { shakes += 1 } })]).wait()
        guard wakes.count >= 2, case .sleeping = wakes[0], case .woke = wakes[1] else { return XCTFail("\(wakes)") }
        guard events.count == 2, case let .back(backT, false) = events[1] else { return XCTFail("\(events)") }
        XCTAssertEqual(backT, 4.3 - 0.16, accuracy: 0.0101)
        XCTAssertEqual(shakes, 1, "the shake is still seen once the bus is back")
    }

    func testItGivesUpAfterTheLimitWithTheLastError() throws {
        let clock = ManualClock(startNanoseconds: 1_000_000_000)
        let session = try open(faults: [SimulatedFault(at: 1.0, kind: .unplug, seconds: 60)], clock: clock)
        let r = run(session, seconds: 30, giveUpAfter: 2)
        let error = try XCTUnwrap(r.error as? SensorLostError)
        XCTAssertEqual(error.part, "MPU-6050")
        XCTAssertEqual(error.bus, "simulated")
        XCTAssertEqual(error.address, 0x68)
        XCTAssertEqual(error.span, .seconds(2))
        let last = try XCTUnwrap(error.lastError as? I2CError)
        XCTAssertEqual(last.kind, .noAcknowledgeAddress)
        XCTAssertEqual(last.address, 0x68)
        XCTAssertEqual(r.events.count, 1)
        // Lost at 0.84 s, given up at the first tick 2 s later.
        XCTAssertEqual(r.ticks, 285)
        XCTAssertEqual(r.stats.outages, 1)
    }
}
