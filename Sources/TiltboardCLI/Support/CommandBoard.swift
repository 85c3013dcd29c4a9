import Foundation
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// The one place the commands decide what a board's parts are: the Linux devices its file names,
/// or the simulator for `"bus": "simulated"`; with the clock `CommandClock` gives them.
enum CommandBoard {
    /// The bus and GPIO lines of `board`, on `clock`; a Linux bus device below `root` (doctor's
    /// staged machine in tests).
    static func backend(for board: BoardDescription, clock: MonotonicClock, devicesBelow root: String = "") throws -> BoardBackend {
        if board.isSimulated { return try SimulatedBoard(board: board, clock: clock) }
        var linux = LinuxBoard(board: board)
        linux.busPath = SystemInspector(root: root).path(linux.busPath)
        linux.sysfsRoot = root.isEmpty ? sysfsRoot : root + "/sys"
        return linux
    }

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

    /// Opens `board` on its own clock (see `BoardSession.init`; the virtual one with `fast`).
    static func open(_ board: BoardDescription, clock: MonotonicClock? = nil, fast: Bool = false, profilePath: String? = nil,
                     useProfile: Bool = true, rateHz: Double? = nil, fifo: Bool? = nil,
                     wrapBus: ((I2CBus) -> I2CBus)? = nil) throws -> BoardSession {
        let clock = try clock ?? CommandClock.clock(for: board, fast: fast)
        return try BoardSession(board: board, backend: backend(for: board, clock: clock), clock: clock,
                                profilePath: profilePath, useProfile: useProfile, rateHz: rateHz, fifo: fifo,
                                wrapBus: wrapBus)
    }

    /// The bus `probe` looks at: `/dev/i2c-N`, or for `simulated` every registered chip,
    /// simulated, at its default address.
    static func probeBus(_ path: String) throws -> I2CBus {
        path == BoardDescription.simulatedBus
            ? SimulatedBoard.probeBus(clock: try CommandClock.clock(simulated: true))
            : try LinuxI2CBus(path: path)
    }
}
