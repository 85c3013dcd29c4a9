import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator

/// An opened board: its bus, its identified and configured sensor, its calibration profile and,
/// on request, its motor line. Each part acquired registers what gives it back (`onClose`);
/// `close()` runs those once, newest first, and an open that fails part-way runs them itself.
public final class BoardSession {
    public let board: BoardDescription
    /// Where the bus and the GPIO lines come from.
    public let backend: BoardBackend
    public let clock: MonotonicClock
    public let bus: I2CBus
    /// The simulator's bus when the board is simulated (transaction counters for `bench`).
    public var simulatedBus: SimulatedI2CBus? { (backend as? SimulatedBoard)?.bus }
    /// The simulated chip when the board is simulated (its sample clock, for `bench`).
    package var simulatedDevice: (any SimulatedChip)? { (backend as? SimulatedBoard)?.device }
    public let sensor: MotionSensor
    /// Where this board's profile lives (the path the program was given, or the default for its name).
    public let profilePath: String
    /// False when opened with `useProfile: false` (the program was told to ignore it): the profile is not applied.
    public let usesProfile: Bool
    /// The profile applied to samples; nil when there is none or it was ignored.
    public private(set) var profile: CalibrationProfile?
    /// Things a person should know (a clone chip), to print once on stderr.
    public private(set) var warnings: [String] = []
    public private(set) var motor: GPIOOutputLine?
    /// The sensor's INT pin, once `openInterruptLine()` opened it.
    public private(set) var interruptLine: GPIOInputLine?
    /// What this session has programmed into the chip's own offset registers, in g and °/s, as
    /// the registers' steps express it (zero after `configure`, which restores the chip's factory
    /// or zero offsets).
    public private(set) var chipOffsets = ChipOffsets.none
    /// Shake settings given for this run only (a threshold the program was given): over the
    /// profile's and the board file's.
    public var shakeOverrides = BoardDescription.ShakeSection()
    /// What `close()` undoes, newest first.
    private let teardown: Teardown

    /// Opens the bus through `backend` (`LinuxBoard` or `SimulatedBoard`), identifies and
    /// configures the sensor, and loads the board's profile unless `useProfile` is false. A bad
    /// profile throws (`ProfileError`). `wrapBus` puts a layer between the driver and the bus
    /// (e.g. `CountingI2CBus` for `bench`).
    public init(board: BoardDescription, backend: BoardBackend, clock: MonotonicClock, profilePath: String? = nil,
                useProfile: Bool = true, rateHz: Double? = nil, fifo: Bool? = nil,
                wrapBus: ((I2CBus) -> I2CBus)? = nil) throws {
        self.board = board
        self.backend = backend
        self.clock = clock
        self.profilePath = profilePath ?? ProfileStore.defaultPath(boardName: board.name)
        usesProfile = useProfile
        let teardown = Teardown()
        self.teardown = teardown
        do {
            let opened = try backend.openBus()
            teardown.add { opened.close() }
            bus = wrapBus.map { $0(opened) } ?? opened
            let sensor = try board.sensor.chip.openSensor(bus: bus, address: board.sensor.address, clock: clock)
            // Registered once the chip is identified, so a failure from here on (a bad profile, a
            // configuration the chip refuses) leaves it asleep, not sampling.
            teardown.add { try? sensor.sleep() }
            self.sensor = sensor
            if let warning = sensor.identity.warning { warnings.append(warning) }
            if useProfile {
                profile = try ProfileStore.load(path: self.profilePath,
                                                expectedBoard: ProfileBoardIdentity(board: board, chipID: sensor.identity.chipID))
            }
            var configuration = board.sensor.configuration
            if let rateHz { configuration.rateHz = rateHz }
            if let fifo { configuration.useFIFO = fifo }
            try sensor.configure(configuration)
            // The offset registers are volatile: a profile that moved its offsets into the chip
            // needs them programmed again in every session.
            try programChipOffsets(for: profile)
        } catch {
            teardown.run()
            throw error
        }
    }

    /// The board's identity as a profile records it.
    public var profileIdentity: ProfileBoardIdentity {
        ProfileBoardIdentity(board: board, chipID: sensor.identity.chipID)
    }


    /// Uses `profile` from now on and brings the chip's offset registers in line with it: its
    /// offsets when the profile says `writtenToChip`, none otherwise.
    public func apply(profile: CalibrationProfile?) throws {
        try programChipOffsets(for: profile)
        self.profile = profile
    }

    /// After the bus failed or the chip may have reset: checks that the chip answering is the one
    /// identified at open and that it still holds its configuration. A chip that reset is
    /// configured again and its offset registers re-programmed from the profile. Returns true
    /// when it was reconfigured.
    public func restoreSensor() throws -> Bool {
        guard try SensorRecovery.reconfigureIfReset(sensor) else { return false }
        // A reset put the offset registers back at their power-on values, as at open.
        chipOffsets = .none
        try programChipOffsets(for: profile)
        return true
    }

    /// Makes the chip's offset registers subtract `accelG` (and `gyroDps`, on a chip with a gyro)
    /// as closely as their steps allow. The drivers' writes are relative to the registers' content,
    /// so only the change is written; `chipOffsets` records what the registers actually hold.
    public func programChipOffsets(accelG: Vector3, gyroDps: Vector3?) throws {
        // A chip without offset registers (the LIS3DH) leaves the whole correction to software.
        guard sensor.chipVariant.accelOffsets != nil else { return }
        let withGyro = sensor.identity.chip.details.gyroscope != nil
        let target = ChipOffsets(accelG: accelG, gyroDps: withGyro ? (gyroDps ?? .zero) : .zero)
        guard target != chipOffsets else { return }
        let accelDelta = target.accelG - chipOffsets.accelG
        let gyroDelta = target.gyroDps - chipOffsets.gyroDps
        try sensor.writeOffsets(accelOffsetG: accelDelta, gyroBiasDps: withGyro ? gyroDelta : nil)
        // The part the registers cannot express stays with the software correction.
        let accelStep = sensor.chipVariant.accelOffsets?.step ?? 0
        let gyroStep = sensor.chipVariant.gyroOffsets?.step ?? 0
        chipOffsets = ChipOffsets(accelG: chipOffsets.accelG + quantized(accelDelta, step: accelStep),
                                  gyroDps: chipOffsets.gyroDps + quantized(gyroDelta, step: gyroStep))
    }

    private func quantized(_ v: Vector3, step: Double) -> Vector3 {
        guard step > 0 else { return .zero }
        return Vector3((v.x / step).rounded() * step, (v.y / step).rounded() * step, (v.z / step).rounded() * step)
    }

    private func programChipOffsets(for profile: CalibrationProfile?) throws {
        if let s = profile?.sensor, s.writtenToChip {
            try programChipOffsets(accelG: s.offsetG, gyroDps: s.gyroBiasDps)
        } else {
            try programChipOffsets(accelG: .zero, gyroDps: nil)
        }
    }

    /// The profile's sensor correction less what the chip already subtracts, so an offset
    /// programmed into the chip is not removed a second time in software (only the remainder
    /// below the registers' step is).
    public var softwareCalibration: SensorCalibration {
        guard let profile else { return .identity }
        var c = profile.sensorCalibration
        c.offsetG = c.offsetG - chipOffsets.accelG
        if let bias = c.gyroBiasDps { c.gyroBiasDps = bias - chipOffsets.gyroDps }
        return c
    }

    /// The tilt chain for this board: its mount, the profile's calibration and neutral pose,
    /// and the estimator suited to the chip (gyro-aided on the MPU-6050).
    public func makeTiltTracker(controller: TiltControllerSettings = TiltControllerSettings()) -> TiltTracker {
        let calibration = softwareCalibration
        var hold = HoldStill(biasKnown: calibration.gyroBiasDps != nil, calibratedTempC: profile?.temperatureC)
        if let drift = board.sensor.chip.details.zeroGDrift {
            hold.settings.driftGPerC = drift.tempcoGPerC
            hold.settings.temperatureRangeC = drift.operatingRangeC
        }
        return TiltTracker(calibration: calibration,
                         mount: board.mount,
                         estimator: TiltEstimator(mode: board.sensor.chip.details.gyroscope != nil ? .gyroAided() : .accelerometerOnly),
                         neutral: profile?.neutralPose(mount: board.mount) ?? .level,
                         controller: TiltController(settings: controller),
                         holdStill: hold)
    }

    /// Opens the motor line (once), driven inactive and released again at `close()`; nil when the
    /// board has no motor.
    @discardableResult
    public func openMotor() throws -> GPIOOutputLine? {
        if let motor { return motor }
        guard let m = board.motor else { return nil }
        let line = try backend.openMotorLine(m)
        motor = line
        teardown.add { line.release() }
        return line
    }

    /// Opens the GPIO input wired to the sensor's INT pin (once), released again at `close()`; nil
    /// when the board has no `interrupt` section. On a simulated board it is the simulated chip's
    /// own pin. Opened on request, so commands that do not wait on it never claim the line.
    @discardableResult
    public func openInterruptLine() throws -> GPIOInputLine? {
        if let interruptLine { return interruptLine }
        guard let i = board.interrupt, let line = try backend.openInterruptLine(i) else { return nil }
        interruptLine = line
        teardown.add { line.release() }
        return line
    }

    /// Registers `action` to undo something acquired on top of this board (a haptic engine on its
    /// motor line, a device fed from its samples): `close()` runs it before what was acquired
    /// earlier, so whatever uses a part is stopped before the part is given back. After `close()`
    /// it runs at once.
    public func onClose(_ action: @escaping () -> Void) {
        teardown.add(action)
    }

    /// Gives back everything acquired, newest first: whatever was registered with `onClose`, the
    /// interrupt and motor lines (motor driven inactive), the sensor put to sleep/standby, the bus
    /// closed. Runs once; later calls, from any thread, do nothing more.
    public func close() {
        teardown.run()
    }

    /// True once `close()` has run (or an open failed and gave its parts back).
    public var isClosed: Bool { teardown.hasRun }
}

/// Offsets held in a chip's own offset registers, in the profile's units.
public struct ChipOffsets: Sendable, Equatable {
    /// Subtracted from the acceleration, g.
    public var accelG: Vector3
    /// Subtracted from the rotation rate, °/s (zero on a chip without a gyro).
    public var gyroDps: Vector3

    public init(accelG: Vector3, gyroDps: Vector3) { self.accelG = accelG; self.gyroDps = gyroDps }

    /// Nothing programmed beyond the chip's own reset state.
    public static let none = ChipOffsets(accelG: .zero, gyroDps: .zero)
}
