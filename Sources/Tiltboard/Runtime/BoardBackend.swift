import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// Where an opened board's bus and GPIO lines come from: the Linux devices its board file names
/// (`LinuxBoard`), or the simulator (`SimulatedBoard`). The program chooses; `BoardSession` uses
/// what it is given.
package protocol BoardBackend {
    /// Opens the bus the sensor is on.
    func openBus() throws -> I2CBus
    /// Opens the line that drives the motor, driven inactive.
    func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine
    /// Opens the GPIO input wired to the sensor's INT pin; nil when there is none to open.
    func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine?
}

/// A board on Linux: `/dev/i2c-N` through i2c-dev, the motor and INT lines through libgpiod. Opens
/// nothing until asked, so a motor can be driven on a board whose sensor is not wired yet.
package struct LinuxBoard: BoardBackend {
    /// The bus device, e.g. `/dev/i2c-1`.
    package var busPath: String
    /// The sensor's address: `openBus` refuses a bus where a kernel driver owns it.
    package var sensorAddress: UInt8
    /// Where sysfs is read (a staged folder in tests).
    package var sysfsRoot = I2CKernelDriver.defaultSysfsRoot

    /// The devices `board`'s file names.
    package init(board: BoardDescription) {
        busPath = board.sensor.bus
        sensorAddress = board.sensor.address
    }

    /// Opens the bus, unless a kernel driver (an IIO driver bound by a device-tree overlay) owns
    /// the sensor's address: then `KernelDriverBoundError`. i2c-dev's `I2C_RDWR` does not check
    /// that the address is claimed, so without this both would configure the same chip.
    package func openBus() throws -> I2CBus {
        try I2CKernelDriver.requireNoDriver(bus: busPath, address: sensorAddress, sysfsRoot: sysfsRoot)
        return try LinuxI2CBus(path: busPath)
    }

    package func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine {
        try GpiodOutputLine(chip: motor.line.chip, line: motor.line.line, activeLow: motor.activeLow)
    }

    package func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine? {
        try GpiodInputLine(chip: interrupt.line.chip, line: interrupt.line.line)
    }
}

extension BoardSession {
    /// Opens the board a board file describes (JSON, see Boards/README.md), real or simulated:
    /// the one entry point for a program embedding the library. A simulated board
    /// (`"bus": "simulated"`) runs the simulator, a real one the Linux devices its file names;
    /// both on the system's monotonic clock unless `clock` says otherwise. `profilePath` (default:
    /// the board's own under `$XDG_CONFIG_HOME/tiltboard/profiles`) is loaded and applied unless
    /// `useProfile` is false. `close()` gives everything back.
    public static func open(boardFile path: String, profilePath: String? = nil, useProfile: Bool = true,
                            clock: MonotonicClock? = nil) throws -> BoardSession {
        try BoardSession(board: BoardDescription.load(path: path), clock: clock, profilePath: profilePath, useProfile: useProfile)
    }

    /// Opens `board` on the backend it names (the simulator for `"bus": "simulated"`, the Linux
    /// devices otherwise; see `open(boardFile:)`), on `clock` (default: the system's monotonic
    /// clock). `rateHz` and `fifo` override the board file's sampling; `sysfsRoot` and `busPath`
    /// where a real board's sysfs and bus device are found (a staged machine in tests);
    /// `wrapBus` puts a layer between the driver and the bus.
    public convenience init(board: BoardDescription, clock: MonotonicClock? = nil, profilePath: String? = nil,
                            useProfile: Bool = true, rateHz: Double? = nil, fifo: Bool? = nil,
                            sysfsRoot: String? = nil, busPath: String? = nil,
                            wrapBus: ((I2CBus) -> I2CBus)? = nil) throws {
        let clock = clock ?? LinuxMonotonicClock()
        try self.init(board: board, backend: Self.backend(for: board, clock: clock, sysfsRoot: sysfsRoot, busPath: busPath),
                      clock: clock, profilePath: profilePath, useProfile: useProfile, rateHz: rateHz, fifo: fifo,
                      wrapBus: wrapBus)
    }

    /// The bus and GPIO lines of `board`: the simulator for a simulated board, else the Linux
    /// devices its file names (the bus device at `busPath`, sysfs read at `sysfsRoot`, when given).
    package static func backend(for board: BoardDescription, clock: MonotonicClock, sysfsRoot: String? = nil,
                                busPath: String? = nil) throws -> BoardBackend {
        if board.isSimulated { return try SimulatedBoard(board: board, clock: clock) }
        var linux = LinuxBoard(board: board)
        if let busPath { linux.busPath = busPath }
        if let sysfsRoot { linux.sysfsRoot = sysfsRoot }
        return linux
    }
}
