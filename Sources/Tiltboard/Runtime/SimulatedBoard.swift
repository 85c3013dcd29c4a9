import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import TiltboardLinux
import Foundation

/// The simulator behind a board file whose `sensor.bus` is `"simulated"`: a simulated bus with
/// the chip attached at the board's address, playing the board's motion script or trace.
package struct SimulatedBoard {
    package let bus: SimulatedI2CBus
    package let motion: MotionSource
    /// The simulated chip on the bus (its sample clock tells how many samples it produced).
    package let device: any SimulatedChip
    /// The clock the chip and the motor line run on.
    package let clock: MonotonicClock
    /// Where the motor line's changes are logged (`simulation.motorLog`), if anywhere.
    package let motorLog: String?
    /// How the motor disturbs the bus (`simulation.motorNoise`); nil when it does not.
    package let motorCoupling: SimulatedMotorCoupling?

    package init(board: BoardDescription, clock: MonotonicClock) throws {
        let settings = board.simulation ?? BoardDescription.SimulationSection()
        self.clock = clock
        motorLog = settings.motorLog
        motion = try SimulatedBoard.motion(for: settings, board: board)
        var imperfections = settings.noise
            ? SimulatedBoard.part(settings.part, chip: board.sensor.chip, seed: settings.seed)
            : SensorImperfections.ideal
        if let mg = settings.zeroGOffsetMg { imperfections.zeroGOffsetG = mg / 1000 }
        if let scale = settings.scaleError { imperfections.scaleError = scale }
        let bus = SimulatedI2CBus()
        self.bus = bus
        device = SimulatedChipRegistry.factory(for: board.sensor.chip)
            .makeChip(chipID: settings.whoAmI, clock: clock, motion: motion, imperfections: imperfections)
        bus.attach(device, at: board.sensor.address)
        bus.schedule(faults: settings.faults, address: board.sensor.address, clock: clock)
        motorCoupling = settings.motorNoise.flatMap { noise in
            noise.isQuiet ? nil : bus.couple(motorNoise: noise, address: board.sensor.address, clock: clock, seed: settings.seed)
        }
    }

    /// The seeded part `simulation.part` asks for.
    static func part(_ part: BoardDescription.SimulationSection.Part, chip: ChipKind, seed: UInt64) -> SensorImperfections {
        switch part {
        case .typical: return .datasheet(chip: chip, seed: seed)
        case .worst: return .worstCase(chip: chip, seed: seed)
        case let .explicit(v):
            var p = SensorImperfections.datasheet(chip: chip, seed: seed)
            if chip.details.gyroscope != nil {
                if let b = v.gyroBiasDps { p.gyroBiasDps = b }
                if let k = v.gyroBiasTempcoDpsPerC { p.gyroBiasTempcoDpsPerC = k }
            }
            if let o = v.zeroGOffsetMg { p.zeroGOffsetG = o / 1000 }
            if let k = v.zeroGTempcoMgPerC { p.zeroGTempcoGPerC = k / 1000 }
            if let w = v.warmUpC { p.warmUpC = w }
            if let s = v.warmUpSeconds { p.warmUpSeconds = s }
            return p
        }
    }

    static func motion(for settings: BoardDescription.SimulationSection, board: BoardDescription) throws -> MotionSource {
        if let trace = settings.trace {
            let bytes = try readNamedFile(trace, key: "simulation.trace", board: board, maxBytes: maxTraceBytes)
            guard let text = String(bytes: bytes, encoding: .utf8) else {
                throw BoardFileError(file: board.source, key: "simulation.trace", problem: .traceNotText(path: trace))
            }
            do { return try TraceMotion(csv: text, shouldStop: { SignalWatcher.shared.stopRequested }) } catch let stopped as TraceLoadStopped {
                throw stopped
            } catch {
                throw BoardFileError(file: board.source, key: "simulation.trace", problem: .badContents(path: trace, underlying: .init(error)))
            }
        }
        let script = settings.script ?? "flat"
        if let builtIn = MotionScript.builtIn(named: script) { return builtIn }
        let data: Data
        do {
            data = Data(try readNamedFile(script, key: "simulation.script", board: board, maxBytes: 16 << 20))
        } catch let error as BoardFileError where error.problem == .namedFileMissing(path: script) {
            throw BoardFileError(file: board.source, key: "simulation.script",
                                 problem: .noSuchScript(path: script, builtIn: MotionScript.builtInNames), fileProblem: .missing)
        }
        do { return try MotionScript(jsonData: data) } catch {
            throw BoardFileError(file: board.source, key: "simulation.script", problem: .badContents(path: script, underlying: .init(error)))
        }
    }

    /// The largest trace read: about 2.7 million lines of seven fields (a day at 30 Hz).
    static let maxTraceBytes = 256 << 20

    /// The whole of a file a board file names, read only when it is a regular file of at most
    /// `maxBytes` (a FIFO, a device, a folder or a huge file is refused at once, without waiting
    /// on it or reading it); failures are the board file's error at `key`, naming the file.
    private static func readNamedFile(_ path: String, key: String, board: BoardDescription, maxBytes: Int) throws -> [UInt8] {
        do {
            guard let bytes = try AtomicFile.read(path: path, maxBytes: maxBytes) else {
                throw BoardFileError(file: board.source, key: key, problem: .namedFileMissing(path: path), fileProblem: .missing)
            }
            return bytes
        } catch let error as AtomicFileError {
            throw BoardFileError(file: board.source, key: key, problem: .namedFileUnreadable(path: path, errno: error.errno), errno: error.errno)
        } catch let error as NotARegularFile {
            throw BoardFileError(file: board.source, key: key, problem: .namedFileNotRegular(path: path, kind: error.kind),
                                 fileProblem: .notRegular)
        } catch let error as FileTooLarge {
            throw BoardFileError(file: board.source, key: key, problem: .namedFileTooLarge(path: path, size: error.size, limit: error.limit),
                                 fileProblem: .tooLarge)
        }
    }
}

extension SimulatedBoard: BoardBackend {
    /// The simulated bus, the chip attached at the board's address.
    package func openBus() throws -> I2CBus { bus }

    /// A simulated line, its changes appended to `motorLog` when there is one.
    package func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine {
        let line = SimulatedGPIOLine(name: "simulated motor (\(motor.line.chip) \(motor.line.line))", clock: clock)
        if let coupling = motorCoupling {
            line.onChange = { _, active in coupling.motorSwitched(active: active) }
        }
        if let motorLog {
            let log = try MotorLog(path: motorLog, monotonic: clock is LinuxMonotonicClock)
            // One process drives a line: as the kernel refuses a second request for a GPIO line
            // (EBUSY), a simulated line whose log another process holds is refused.
            guard log.claim() else {
                throw GPIOError(.simulatedLineBusy(motorLog: motorLog))
            }
            // The line is driven inactive when requested; a predecessor killed with the motor
            // on left the log (the line's state) at 1, so that is a change to record.
            if log.lastLevelWasActive { log.append(t: clock.nowSeconds(), active: false) }
            let coupled = line.onChange
            line.onChange = { t, active in
                coupled?(t, active)
                log.append(t: t, active: active)
            }
        }
        return line
    }

    /// The simulated chip's own INT pin.
    package func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine? {
        device.interruptPin
    }
}

extension SimulatedBoard {
    /// A simulated bus with every registered chip at its default address, flat and ideal:
    /// what a probe of the simulated bus looks at.
    package static func probeBus(clock: MonotonicClock) -> SimulatedI2CBus {
        let bus = SimulatedI2CBus()
        let flat = MotionScript.builtIn(named: "flat")!
        for (chip, address) in ChipRegistry.oneOfEach {
            bus.attach(SimulatedChipRegistry.factory(for: chip.kind).makeChip(chipID: nil, clock: clock, motion: flat, imperfections: .ideal),
                       at: address)
        }
        return bus
    }
}
