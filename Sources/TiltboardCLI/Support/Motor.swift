import Tiltboard

/// The board's motor line driven by a haptic engine, forced off and released on SIGINT, SIGTERM,
/// SIGHUP, on every error path and at exit. Start `SignalWatcher.shared` before creating it.
final class Motor {
    let engine: HapticEngine
    let line: GPIOOutputLine

    /// Nil when the board has no motor. `announceChanges`: on a simulated board, print each
    /// level change on stderr so the motor can be followed without hardware.
    static func open(_ session: BoardSession, announceChanges: Bool) throws -> Motor? {
        guard let line = try session.openMotor() else { return nil }
        return Motor(line: line, session: session, announceChanges: announceChanges)
    }

    private init(line: GPIOOutputLine, session: BoardSession, announceChanges: Bool) {
        self.line = line
        engine = HapticEngine(line: line, clock: session.clock, maxOnSeconds: session.board.motor?.maxOnSeconds ?? 2)
        let engine = engine
        SignalWatcher.shared.onStop { _ in engine.shutdown() }
        if announceChanges, let simulated = line as? SimulatedGPIOLine {
            let previous = simulated.onChange
            let origin = session.clock.nowSeconds()
            simulated.onChange = { t, active in
                previous?(t, active)
                Console.note("motor \(active ? "on " : "off") at \(fixed(t - origin, 3)) s")
            }
        }
    }

    /// Motor off, line released, engine thread joined; idempotent.
    func shutdown() { engine.shutdown() }

    deinit { engine.shutdown() }
}
