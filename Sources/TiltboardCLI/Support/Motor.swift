import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux
import TiltboardSimulator

/// The board's motor line driven by a haptic engine, forced off and released on every signal the
/// `SignalWatcher` takes (SIGINT, SIGTERM, SIGHUP and the other terminating ones), on every error
/// path and at exit, held off while the process is stopped (Ctrl-Z), and driven inactive by the
/// crash handler (`CrashFailSafe`) on a crash.
/// Start `SignalWatcher.shared` before creating it.
///
/// Every command that drives the motor opens it here, once, so whatever it plays goes through the
/// board's on-time cap (`motor.maxOnMs`, `motor.minRestMs`) for as long as the process runs.
final class Motor {
    let engine: HapticEngine
    let line: GPIOOutputLine

    /// Nil when the board has no motor. `announceChanges`: on a simulated board, print each
    /// level change on stderr so the motor can be followed without hardware. `warnOnTrip`: warn
    /// on stderr each time the on-time cap stops the motor (off where stderr is a live screen).
    /// `carrierHz`: the PWM carrier for strengths below 1. The session's `close()` shuts it down,
    /// before the sensor sleeps.
    /// `label`: with several boards, the player whose motor it is, starting each of its lines.
    static func open(_ session: BoardSession, announceChanges: Bool, warnOnTrip: Bool = true, carrierHz: Double = 200,
                     label: String? = nil) throws -> Motor? {
        guard let line = try session.openMotor(), let section = session.board.motor else { return nil }
        let motor = Motor(line: line, clock: session.clock, cap: section.cap, announceChanges: announceChanges,
                          warnOnTrip: warnOnTrip, carrierHz: carrierHz, label: label)
        let engine = motor.engine
        session.onClose { engine.shutdown() }
        return motor
    }

    /// Takes over an already requested line (a motor driven without opening the sensor).
    init(line: GPIOOutputLine, clock: MonotonicClock, cap: MotorCapSettings, announceChanges: Bool,
         warnOnTrip: Bool = true, carrierHz: Double = 200, label: String? = nil) {
        self.line = line
        let prefix = label.map { "\($0): " } ?? ""
        let warning = prefix + "the motor was switched off after \(decimal(cap.maxOnSeconds, 1)) s on without a break (motor.maxOnMs)"
        engine = HapticEngine(line: line, clock: clock, cap: cap, carrierHz: carrierHz,
                              capTripped: { if warnOnTrip { Console.warn(warning) } })
        let engine = engine
        SignalWatcher.shared.onStop { _ in engine.shutdown() }
        // Ctrl-Z: off before the process stops, back to the effect when it continues.
        SignalWatcher.shared.onSuspend { engine.suspend() }
        SignalWatcher.shared.onResume { engine.resume() }
        if announceChanges, let simulated = line as? SimulatedGPIOLine {
            let previous = simulated.onChange
            let origin = clock.nowSeconds()
            simulated.onChange = { t, active in
                previous?(t, active)
                Console.note(prefix + "motor \(active ? "on " : "off") at \(decimal(t - origin, 3)) s")
            }
        }
    }

    /// `cap trips N` for a command's end-of-run summary line: how many times the on-time cap
    /// stopped `motor` (0 without one).
    static func tripsSummary(_ motor: Motor?) -> String {
        "cap trips \(motor?.engine.capTrips ?? 0)"
    }

    /// Motor off, line released, engine thread joined; idempotent.
    func shutdown() { engine.shutdown() }

    deinit { engine.shutdown() }
}
