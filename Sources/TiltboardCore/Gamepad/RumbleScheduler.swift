/// A force-feedback effect as the one motor renders it: a strength and its replay timing
/// (Linux `struct ff_effect`, Documentation/input/ff.rst).
package struct RumbleEffect: Sendable, Equatable {
    /// 0…1 before the device gain.
    package var strength: Double
    /// How long one play lasts; 0 plays until stopped (`replay.length` 0, as ff-memless treats it).
    package var lengthSeconds: Double
    /// Wait before each play (`replay.delay`).
    package var delaySeconds: Double

    package init(strength: Double, lengthSeconds: Double, delaySeconds: Double = 0) {
        self.strength = Swift.min(1, Swift.max(0, strength))
        self.lengthSeconds = Swift.max(0, lengthSeconds)
        self.delaySeconds = Swift.max(0, delaySeconds)
    }

    /// `FF_RUMBLE`: a dual-motor request on one motor. The strong (heavy, low-frequency) motor
    /// counts fully and the weak (light, high-frequency) one half, since a single eccentric-mass
    /// motor cannot render the difference in frequency; the sum is capped at full strength.
    package static func rumble(strong: UInt16, weak: UInt16, lengthMs: UInt16, delayMs: UInt16) -> RumbleEffect {
        RumbleEffect(strength: (Double(strong) + Double(weak) / 2) / Double(UInt16.max),
                     lengthSeconds: Double(lengthMs) / 1000, delaySeconds: Double(delayMs) / 1000)
    }

    /// `FF_CONSTANT` (`level`) or `FF_PERIODIC` (`magnitude`): the size of the signed force, the
    /// direction and waveform being beyond a vibration motor.
    package static func level(_ level: Int16, lengthMs: UInt16, delayMs: UInt16) -> RumbleEffect {
        RumbleEffect(strength: Swift.abs(Double(level)) / Double(Int16.max),
                     lengthSeconds: Double(lengthMs) / 1000, delaySeconds: Double(delayMs) / 1000)
    }
}

/// The effects a game has uploaded and played, mixed into one motor strength over time.
///
/// Pure timing on seconds the caller supplies, like the kernel's memoryless force-feedback
/// core (drivers/input/ff-memless.c): each play of an effect waits its delay then lasts its
/// length, `count` times over; effects playing together add up (capped at full strength); the
/// device gain scales the sum. Nothing allocates after `init`.
package struct RumbleScheduler: Sendable {
    /// Effect slots offered to the kernel (`ff_effects_max`); ids run 0..<maxEffects.
    package static let maxEffects = 16

    private struct Slot: Sendable {
        var effect: RumbleEffect
        /// When the current `play` began, and how many plays it asked for; nil while stopped.
        var startedAt: Double?
        var count = 0
    }

    private var slots: [Slot?] = Array(repeating: nil, count: maxEffects)
    /// 0…1, from `FF_GAIN` (0…0xFFFF); full until the game sets it.
    package private(set) var gain = 1.0

    package init() {}

    /// Stores effect `id`; replacing an effect whose plays have not all ended restarts them with
    /// the new settings, as ff-memless does; any other stays stopped until played. Returns false
    /// for an id outside 0..<maxEffects.
    @discardableResult
    package mutating func upload(id: Int, _ effect: RumbleEffect, at t: Double) -> Bool {
        guard slots.indices.contains(id) else { return false }
        if var slot = slots[id] {
            let running = Self.isRunning(slot, at: t)
            slot.effect = effect
            slot.startedAt = running ? t : nil
            slots[id] = slot
        } else {
            slots[id] = Slot(effect: effect)
        }
        return true
    }

    /// Forgets effect `id`, stopping it.
    package mutating func erase(id: Int) {
        if slots.indices.contains(id) { slots[id] = nil }
    }

    /// The `EV_FF` play event: `count` plays from `t`, or a stop when `count` is 0.
    package mutating func play(id: Int, count: Int32, at t: Double) {
        guard slots.indices.contains(id), var slot = slots[id] else { return }
        slot.startedAt = count > 0 ? t : nil
        slot.count = Int(Swift.max(0, count))
        slots[id] = slot
    }

    /// The `FF_GAIN` event: 0…0xFFFF.
    package mutating func setGain(_ value: Int32) {
        gain = Double(Swift.min(Int32(UInt16.max), Swift.max(0, value))) / Double(UInt16.max)
    }

    /// Stops every effect (the device is closing).
    package mutating func stopAll() {
        for i in slots.indices { slots[i]?.startedAt = nil }
    }

    /// The motor strength at `t`, 0…1.
    package func strength(at t: Double) -> Double {
        var sum = 0.0
        for case let slot? in slots where Self.isOn(slot, at: t) { sum += slot.effect.strength }
        return Swift.min(1, sum) * gain
    }

    /// The first time at or after `t` when the strength is 0; nil when effects play until stopped.
    package func silence(from t: Double) -> Double? {
        var now = t
        // Each step moves to the next start or end of a play; plays are finite in number.
        while strength(at: now) > 0 {
            guard let next = nextChange(after: now) else { return nil }
            now = next
        }
        return now
    }

    /// The next time after `t` when some effect starts or ends a play; nil if none will.
    package func nextChange(after t: Double) -> Double? {
        var best: Double?
        for case let slot? in slots {
            if let c = Self.nextChange(slot, after: t), c < (best ?? .infinity) { best = c }
        }
        return best
    }

    private static func isOn(_ slot: Slot, at t: Double) -> Bool {
        guard let start = slot.startedAt, t >= start else { return false }
        let e = slot.effect
        if e.lengthSeconds == 0 { return t >= start + e.delaySeconds }
        let k = play(slot, at: t, from: start)
        return k < Double(slot.count) && t >= start + k * period(e) + e.delaySeconds
    }

    private static func nextChange(_ slot: Slot, after t: Double) -> Double? {
        guard let start = slot.startedAt else { return nil }
        let e = slot.effect
        if e.lengthSeconds == 0 { return t < start + e.delaySeconds ? start + e.delaySeconds : nil }
        let k = Swift.max(0, play(slot, at: t, from: start))
        guard k < Double(slot.count) else { return nil }
        let onAt = start + k * period(e) + e.delaySeconds
        return t < onAt ? onAt : start + (k + 1) * period(e)
    }

    /// Started and not past its last play (a delay between plays counts as running).
    private static func isRunning(_ slot: Slot, at t: Double) -> Bool {
        guard let start = slot.startedAt else { return false }
        return slot.effect.lengthSeconds == 0 || t < start + Double(slot.count) * period(slot.effect)
    }

    private static func period(_ e: RumbleEffect) -> Double { e.delaySeconds + e.lengthSeconds }

    /// Which play (0, 1, …) `t` falls in, consistent with the boundaries `start + k·period`
    /// computed elsewhere (a plain division can land on either side of one).
    private static func play(_ slot: Slot, at t: Double, from start: Double) -> Double {
        let p = period(slot.effect)
        var k = ((t - start) / p).rounded(.down)
        if t < start + k * p { k -= 1 } else if t >= start + (k + 1) * p { k += 1 }
        return k
    }
}
