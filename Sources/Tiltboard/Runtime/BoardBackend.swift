import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// Where an opened board's bus and GPIO lines come from: the Linux devices its board file names
/// (`LinuxBoard`), or the simulator (`SimulatedBoard`). The program chooses; `BoardSession` uses
/// what it is given.
public protocol BoardBackend {
    /// Opens the bus the sensor is on.
    func openBus() throws -> I2CBus
    /// Opens the line that drives the motor, driven inactive.
    func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine
    /// Opens the GPIO input wired to the sensor's INT pin; nil when there is none to open.
    func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine?
}

/// A board on Linux: `/dev/i2c-N` through i2c-dev, the motor and INT lines through libgpiod. Opens
/// nothing until asked, so a motor can be driven on a board whose sensor is not wired yet.
public struct LinuxBoard: BoardBackend {
    /// The bus device, e.g. `/dev/i2c-1`.
    public var busPath: String
    /// The sensor's address: `openBus` refuses a bus where a kernel driver owns it.
    public var sensorAddress: UInt8
    /// Where sysfs is read (a staged folder in tests).
    public var sysfsRoot = I2CKernelDriver.defaultSysfsRoot

    /// The devices `board`'s file names.
    public init(board: BoardDescription) {
        busPath = board.sensor.bus
        sensorAddress = board.sensor.address
    }

    /// Opens the bus, unless a kernel driver (an IIO driver bound by a device-tree overlay) owns
    /// the sensor's address: then `KernelDriverBoundError`. i2c-dev's `I2C_RDWR` does not check
    /// that the address is claimed, so without this both would configure the same chip.
    public func openBus() throws -> I2CBus {
        try I2CKernelDriver.requireNoDriver(bus: busPath, address: sensorAddress, sysfsRoot: sysfsRoot)
        return try LinuxI2CBus(path: busPath)
    }

    public func openMotorLine(_ motor: BoardDescription.MotorSection) throws -> GPIOOutputLine {
        try GpiodOutputLine(chip: motor.line.chip, line: motor.line.line, activeLow: motor.activeLow)
    }

    public func openInterruptLine(_ interrupt: BoardDescription.InterruptSection) throws -> GPIOInputLine? {
        try GpiodInputLine(chip: interrupt.line.chip, line: interrupt.line.line)
    }
}
