import Foundation
@testable import Tiltboard
import TiltboardSimulator
import TiltboardCore
import TiltboardDrivers

/// Services `engine` at every change it asks for up to `end` (clock nanoseconds), moving `clock`
/// there on the way.
func driveEngine(_ engine: HapticEngine, _ clock: ManualClock, to end: UInt64) {
    while let next = engine.service(now: clock.nowNanoseconds()), next <= end {
        clock.set(nanoseconds: max(next, clock.nowNanoseconds() + 1))
    }
    clock.set(nanoseconds: end)
    engine.service(now: end)
}

/// The line's changes as `"<ms after t0> on|off"`.
func motorEdges(_ line: SimulatedGPIOLine, since t0: UInt64) -> [String] {
    line.changes.map { "\(Int((($0.t - Nanoseconds.seconds(t0)) * 1000).rounded())) \($0.active ? "on" : "off")" }
}
