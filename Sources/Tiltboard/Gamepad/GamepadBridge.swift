import TiltboardCore
import TiltboardDrivers

/// Joins the loop to a virtual gamepad: each sample moves the stick and the shake button, and
/// the game's force-feedback requests play on the motor through its `HapticEngine` (so the
/// engine's on-time cap holds whatever the game asks). Loop thread only.
package final class GamepadBridge {
    package let device: GamepadDevice
    package let axes: GamepadAxes
    /// The motor's engine; nil on a board without a motor (requests are answered, nothing plays).
    package let engine: HapticEngine?
    private let clock: MonotonicClock
    package private(set) var scheduler = RumbleScheduler()
    private var button = ShakeButton()
    private var applied = 0.0
    /// Play events received with a count above 0.
    package private(set) var rumblePlays = 0

    package init(device: GamepadDevice, axes: GamepadAxes, engine: HapticEngine?, clock: MonotonicClock) {
        self.device = device; self.axes = axes; self.engine = engine; self.clock = clock
    }

    /// Reports `out` on the stick and button, then takes the game's requests and sets the motor.
    package func update(_ out: PipelineOutput) throws {
        let (x, y) = axes.values(out.controlTilt)
        try device.report(x: x, y: y, button: button.update(t: out.t, shaking: out.shaking))
        try serviceRumble()
    }

    /// The stick back in the centre and the button released: the board stopped giving samples
    /// (its sensor was lost), so a game sees no tilt rather than the last one held.
    package func centre() throws {
        button = ShakeButton(minPressSeconds: button.minPressSeconds)
        try device.report(x: 0, y: 0, button: false)
    }

    /// Takes the game's requests and sets the motor to their mix now.
    package func serviceRumble() throws {
        let now = clock.nowSeconds()
        try device.pollRequests { request in
            switch request {
            case let .upload(id, effect): scheduler.upload(id: id, effect, at: now)
            case let .erase(id): scheduler.erase(id: id)
            case let .play(id, count):
                if count > 0 { rumblePlays += 1 }
                scheduler.play(id: id, count: count, at: now)
            case let .gain(value): scheduler.setGain(value)
            }
        }
        apply(at: now)
    }

    /// Sets the engine when the mixed strength changed: a pulse lasting until the mix falls
    /// silent (the engine ends it on time between samples), or a steady buzz for effects that
    /// play until stopped.
    private func apply(at now: Double) {
        let strength = scheduler.strength(at: now)
        guard strength != applied else { return }
        applied = strength
        guard let engine else { return }
        if strength == 0 {
            engine.cancel()
        } else if let end = scheduler.silence(from: now) {
            engine.play(.pulse(ms: (end - now) * 1000, strength: strength))
        } else {
            engine.play(.waveform(HapticWaveform(timingsMs: [1000], repeatCount: nil, strength: strength)))
        }
    }

    /// Stops every effect, turns the motor off and removes the device.
    package func close() {
        scheduler.stopAll()
        if applied > 0 { engine?.cancel() }
        applied = 0
        device.close()
    }
}
