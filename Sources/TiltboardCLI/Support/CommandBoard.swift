import Foundation
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// The one place the commands decide what a board's parts are: the Linux devices its file names,
/// or the simulator for `"bus": "simulated"`; with the clock `CommandClock` gives them.
enum CommandBoard {
    /// The bus and GPIO lines of `board`, on `clock` (`BoardSession.backend`); a Linux bus device
    /// below `root` (doctor's staged machine in tests), sysfs where `sysfsRoot` says.
    static func backend(for board: BoardDescription, clock: MonotonicClock, devicesBelow root: String = "") throws -> BoardBackend {
        try BoardSession.backend(for: board, clock: clock, sysfsRoot: sysfs(below: root),
                                 busPath: SystemInspector(root: root).path(board.sensor.bus))
    }

    /// sysfs below `root`, or `sysfsRoot` when there is no root.
    private static func sysfs(below root: String) -> String { root.isEmpty ? sysfsRoot : root + "/sys" }

    /// Where sysfs is read: `/sys`, or the folder `TILTBOARD_SYSFS` names (tests stage a fake
    /// tree there; it is not meant for anything else).
    static var sysfsRoot: String {
        ProcessInfo.processInfo.environment["TILTBOARD_SYSFS"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? I2CKernelDriver.defaultSysfsRoot
    }

    /// The kernel drivers that own any of `addresses` on the bus device `path` (none on the
    /// simulated bus), in the order given.
    static func kernelDrivers(onBus path: String, addresses: [UInt8]) -> [I2CDriverBinding] {
        guard path != BoardDescription.simulatedBus else { return [] }
        let root = sysfsRoot
        return addresses.compactMap { I2CKernelDriver.binding(bus: path, address: $0, sysfsRoot: root) }
    }

    /// The one way a command opens a board (`BoardSession.init(board:clock:…)`): on its own clock
    /// (`CommandClock`; the virtual one with `fast`), sysfs where `TILTBOARD_SYSFS` says, and
    /// the driver's warnings (clone chips) printed once on stderr unless `warn` is false.
    static func open(_ board: BoardDescription, clock: MonotonicClock? = nil, fast: Bool = false, profilePath: String? = nil,
                     useProfile: Bool = true, rateHz: Double? = nil, fifo: Bool? = nil, warn: Bool = true,
                     wrapBus: ((I2CBus) -> I2CBus)? = nil) throws -> BoardSession {
        let clock = try clock ?? CommandClock.clock(for: board, fast: fast)
        let session = try BoardSession(board: board, clock: clock, profilePath: profilePath, useProfile: useProfile,
                                       rateHz: rateHz, fifo: fifo, sysfsRoot: sysfsRoot, wrapBus: wrapBus)
        if warn { for warning in session.warnings { Console.warn(warning.line) } }
        return session
    }

    /// `open`, with the profile `options` choose (`--profile`, `--ignore-profile`).
    static func open(_ board: BoardDescription, options: BoardOptions, fast: Bool = false, rateHz: Double? = nil,
                     fifo: Bool? = nil) throws -> BoardSession {
        try open(board, fast: fast, profilePath: options.profile, useProfile: !options.ignoreProfile, rateHz: rateHz, fifo: fifo)
    }

    /// The bus `probe` looks at: `/dev/i2c-N`, or for `simulated` every registered chip,
    /// simulated, at its default address.
    static func probeBus(_ path: String) throws -> I2CBus {
        path == BoardDescription.simulatedBus
            ? SimulatedBoard.probeBus(clock: try CommandClock.clock(simulated: true))
            : try LinuxI2CBus(path: path)
    }
}
