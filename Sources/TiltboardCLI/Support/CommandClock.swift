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
enum CommandClock {
    static let variable = "TILTBOARD_CLOCK"

    /// The clock for `board`; a usage error when the variable names no clock.
    static func clock(for board: BoardDescription) throws -> MonotonicClock {
        try clock(simulated: board.isSimulated)
    }

    /// The clock for a simulated or a real board or bus.
    static func clock(simulated: Bool) throws -> MonotonicClock {
        switch ProcessInfo.processInfo.environment[variable] {
        case nil, "":
            return LinuxMonotonicClock()
        case "virtual":
            return simulated ? VirtualClock() : LinuxMonotonicClock()
        case let other?:
            throw CLIError(message: "\(variable) must be \"virtual\" or unset, got \"\(other)\"", category: .invalidRequest)
        }
    }

    /// `bench` measures the real loop and CPU time, whatever the environment says.
    static func system() -> MonotonicClock { LinuxMonotonicClock() }
}
