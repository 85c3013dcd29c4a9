import Foundation
import Tiltboard
import TiltboardCore
import TiltboardLinux
import TiltboardSimulator

/// The one place every command takes its clock from.
///
/// Real boards always run on `LinuxMonotonicClock`. With `TILTBOARD_CLOCK=virtual` in the
/// environment (meant for tests), a simulated board runs on a `VirtualClock` instead: the
/// simulator, the loop and the motor advance as fast as the work allows, without sleeping, and
/// every time printed or logged is the same on every run and every machine. A real board ignores
/// the variable: its motor and sensor only ever run in real time.
///
/// `--fast` asks for the virtual clock on the command line; on a real board it is a usage error.
enum CommandClock {
    static let variable = "TILTBOARD_CLOCK"

    /// The clock for `board` (virtual with `fast`); a usage error when the variable names no
    /// clock, or when `fast` is asked of a real board.
    static func clock(for board: BoardDescription, fast: Bool = false) throws -> MonotonicClock {
        if fast {
            guard board.isSimulated else {
                throw CLIError(message: "--fast needs a simulated board (\"bus\": \"simulated\"); \(board.name) is on \(board.sensor.bus), which runs in real time",
                               category: .invalidRequest)
            }
            return VirtualClock()
        }
        return try clock(simulated: board.isSimulated)
    }

    /// True for the real clock: a loop on it must never wait for a reader (it drops lines
    /// instead). On any other clock no deadline is real, so every line is written.
    static func isReal(_ clock: MonotonicClock) -> Bool { clock is LinuxMonotonicClock }

    /// On a virtual clock, what a thread calls before reading state that another thread changes
    /// at the same instant (see `VirtualClock.settle()`); nil on any other clock.
    static func settle(_ clock: MonotonicClock) -> (() -> Void)? {
        guard let virtual = clock as? VirtualClock else { return nil }
        return { virtual.settle() }
    }

    /// The clock for a simulated or a real board or bus.
    static func clock(simulated: Bool) throws -> MonotonicClock {
        switch ProcessInfo.processInfo.environment[variable] {
        case nil, "":
            return LinuxMonotonicClock()
        case "virtual":
            return simulated ? VirtualClock() : LinuxMonotonicClock()
        case let other?:
            throw CLIError(message: "\(variable) must be \"virtual\" or unset, got \"\(clipped(escapingControls(other)))\"", category: .invalidRequest)
        }
    }

    /// `bench` measures the real loop and CPU time, whatever the environment says.
    static func system() -> MonotonicClock { LinuxMonotonicClock() }
}
