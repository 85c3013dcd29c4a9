import TiltboardCore
import TiltboardDrivers
import TiltboardSimulator
import TiltboardLinux

/// An opened board: its bus, its identified and configured sensor, its calibration profile and,
/// on request, its motor line. `close()` puts the sensor to sleep and releases the motor.
public final class BoardSession {
    public let board: BoardDescription
    public let clock: MonotonicClock
    public let bus: I2CBus
    /// The simulator's bus when the board is simulated (transaction counters for `bench`).
    public let simulatedBus: SimulatedI2CBus?
    public let sensor: MotionSensor
    /// Where this board's profile lives (`--profile`, or the default for its name).
    public let profilePath: String
    /// The profile applied to samples; nil when there is none or it was ignored.
    public private(set) var profile: CalibrationProfile?
    /// Things a person should know (a clone chip), to print once on stderr.
    public private(set) var warnings: [String] = []
    public private(set) var motor: GPIOOutputLine?

    /// Opens the bus (or the simulator), identifies and configures the sensor, and loads the
    /// board's profile unless `useProfile` is false. A bad profile throws (`ProfileError`).
    public init(board: BoardDescription, clock: MonotonicClock, profilePath: String? = nil,
                useProfile: Bool = true, rateHz: Double? = nil, fifo: Bool? = nil) throws {
        self.board = board
        self.clock = clock
        if board.isSimulated {
            let simulated = try SimulatedBoard(board: board, clock: clock)
            bus = simulated.bus
            simulatedBus = simulated.bus
        } else {
            bus = try LinuxI2CBus(path: board.sensor.bus)
            simulatedBus = nil
        }
        sensor = try openSensor(chip: board.sensor.chip, bus: bus, address: board.sensor.address, clock: clock)
        if let warning = sensor.identity.warning { warnings.append(warning) }
        self.profilePath = profilePath ?? ProfileStore.defaultPath(boardName: board.name)
        if useProfile {
            profile = try ProfileStore.load(path: self.profilePath,
                                            expectedBoard: ProfileBoardIdentity(board: board, chipID: sensor.identity.chipID))
        }
        var configuration = board.sensor.configuration
        if let rateHz { configuration.rateHz = rateHz }
        if let fifo { configuration.useFIFO = fifo }
        try sensor.configure(configuration)
    }

    /// The board's identity as a profile records it.
    public var identity: ProfileBoardIdentity {
        ProfileBoardIdentity(board: board, chipID: sensor.identity.chipID)
    }

    /// Replaces the profile used from now on (after a calibration saved it).
    public func use(profile: CalibrationProfile?) { self.profile = profile }

    /// The tilt chain for this board: its mount, the profile's calibration and neutral pose,
    /// and the estimator suited to the chip (gyro-aided on the MPU-6050).
    public func makeTiltChain(controller: TiltControllerSettings = TiltControllerSettings()) -> TiltChain {
        TiltChain(calibration: profile?.sensorCalibration ?? .identity,
                  mount: board.mount,
                  estimator: TiltEstimator(mode: board.sensor.chip.hasGyro ? .complementary() : .lowPass()),
                  neutral: profile?.neutralPose ?? .level,
                  controller: TiltController(settings: controller))
    }

    /// Opens the motor line (once); nil when the board has no motor.
    @discardableResult
    public func openMotor() throws -> GPIOOutputLine? {
        if let motor { return motor }
        guard let m = board.motor else { return nil }
        if board.isSimulated {
            let line = SimulatedGPIOLine(name: "simulated motor (\(m.line.chip) \(m.line.line))", clock: clock)
            if let path = board.simulation?.motorLog {
                let log = try MotorLog(path: path)
                line.onChange = { t, active in log.append(t: t, active: active) }
            }
            motor = line
        } else {
            motor = try GpiodOutputLine(chip: m.line.chip, line: m.line.line, activeLow: m.activeLow)
        }
        return motor
    }

    /// Sensor to sleep/standby and motor off and released; safe to call more than once.
    public func close() {
        try? sensor.sleep()
        motor?.release()
    }
}
