import Tiltboard

/// The board's motor line driven by a haptic engine, forced off and released on SIGINT, SIGTERM,
/// SIGHUP, on every error path and at exit, and held off while the process is stopped (Ctrl-Z).
/// Start `SignalWatcher.shared` before creating it.
final class Motor {
    let engine: HapticEngine
    let line: GPIOOutputLine

    /// Nil when the board has no motor. `announceChanges`: on a simulated board, print each
    /// level change on stderr so the motor can be followed without hardware. `carrierHz`: the PWM
    /// carrier for strengths below 1.
    static func open(_ session: BoardSession, announceChanges: Bool, carrierHz: Double = 200) throws -> Motor? {
        guard let line = try session.openMotor() else { return nil }
        return Motor(line: line, clock: session.clock, maxOnSeconds: session.board.motor?.maxOnSeconds ?? 2,
                     announceChanges: announceChanges, carrierHz: carrierHz)
    }

    /// Takes over an already requested line (a motor driven without opening the sensor).
    init(line: GPIOOutputLine, clock: MonotonicClock, maxOnSeconds: Double, announceChanges: Bool, carrierHz: Double = 200) {
        self.line = line
        engine = HapticEngine(line: line, clock: clock, maxOnSeconds: maxOnSeconds, carrierHz: carrierHz)
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
                Console.note("motor \(active ? "on " : "off") at \(decimal(t - origin, 3)) s")
            }
        }
    }

    /// Motor off, line released, engine thread joined; idempotent.
    func shutdown() { engine.shutdown() }

    deinit { engine.shutdown() }
}
