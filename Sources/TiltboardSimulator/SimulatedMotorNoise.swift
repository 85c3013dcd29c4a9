import Synchronization
import TiltboardCore
import TiltboardDrivers

/// What the board's vibration motor does to the sensor's bus when it is badly wired: a motor on
/// the same supply and ground as the sensor is a classic cause of `Remote I/O error` (errno 121)
/// on a Raspberry Pi (reported in m-rtijn/mpu6050#34). Each knob stands for one wiring fault, so
/// a check that pulses the motor can be shown each of them; all are off (0) by default.
///
/// Errors are the ones the Linux adapter reports (`I2CFaultCodes`); a failed transaction never
/// reaches the chip. Random draws are seeded, so a run repeats exactly on a virtual clock.
package struct SimulatedMotorNoise: Sendable, Equatable {
    /// Chance (0…1) that a transaction fails with errno 121 while the motor runs: noise the
    /// running motor puts on SDA and SCL.
    package var errorRate: Double
    /// For this long after each switch of the motor (on or off), every transaction fails with
    /// errno 121: the coil's voltage spike when no flyback diode takes it.
    package var switchSeconds: Double
    /// When the motor switches on, nothing answers at the chip's address for this long (ENXIO),
    /// then the chip is in its power-on state: its supply sagged under the motor's start current.
    package var brownOutSeconds: Double
    /// Chance (0…1) that a sample burst (a read of 6 bytes or more) while the motor runs comes
    /// back corrupted, with bit 6 of every byte inverted (noise coupled into a long data line): a
    /// jump of about 1 g or more on an axis of any supported chip at any range. Single-register
    /// reads are left alone, so a corrupted configuration read never passes for a chip reset.
    package var glitchRate: Double
    /// Chance (0…1) that a transaction fails with errno 121 whatever the motor does: a marginal
    /// bus (missing or weak pull-ups).
    package var idleErrorRate: Double

    package init(errorRate: Double = 0, switchSeconds: Double = 0, brownOutSeconds: Double = 0,
                glitchRate: Double = 0, idleErrorRate: Double = 0) {
        self.errorRate = errorRate; self.switchSeconds = switchSeconds; self.brownOutSeconds = brownOutSeconds
        self.glitchRate = glitchRate; self.idleErrorRate = idleErrorRate
    }

    /// True when no knob is set: the motor does nothing to the bus.
    package var isQuiet: Bool {
        errorRate == 0 && switchSeconds == 0 && brownOutSeconds == 0 && glitchRate == 0 && idleErrorRate == 0
    }
}

/// The motor's side of `SimulatedMotorNoise`: the motor line reports each switch here (from
/// whichever thread drives it), and the bus asks on each transaction.
package final class SimulatedMotorCoupling: Sendable {
    let noise: SimulatedMotorNoise
    let address: UInt8
    let clock: MonotonicClock

    private struct State {
        var active = false
        /// Clock time of the last switch, on or off.
        var lastSwitch: UInt64?
        /// Clock time until which a brown-out keeps the chip from answering.
        var brownOutEnd: UInt64 = 0
        /// A brown-out began and the chip has not been reset for it yet.
        var resetPending = false
        var random: UInt64
    }
    private let state: Mutex<State>

    init(noise: SimulatedMotorNoise, address: UInt8, clock: MonotonicClock, seed: UInt64) {
        self.noise = noise
        self.address = address & 0x7F
        self.clock = clock
        // Its own stream, apart from the chip's noise drawn from the same seed.
        state = Mutex(State(random: seed ^ 0x6D6F_746F_725F_6E6F))
    }

    /// The motor line switched to `active`, now.
    package func motorSwitched(active: Bool) {
        let now = clock.nowNanoseconds()
        state.withLock { s in
            guard s.active != active else { return }
            s.active = active
            s.lastSwitch = now
            if active, noise.brownOutSeconds > 0 {
                s.brownOutEnd = now &+ Nanoseconds.span(seconds: noise.brownOutSeconds)
                s.resetPending = true
            }
        }
    }

    /// What the motor does to one transaction at `now`: whether the chip must first return to
    /// its power-on state, the failure (nil: none) and whether a read's data is corrupted.
    func transaction(now: UInt64, isBurstRead: Bool) -> (reset: Bool, failure: Failure?, glitch: Bool) {
        state.withLock { s in
            let reset = s.resetPending
            s.resetPending = false
            if now < s.brownOutEnd { return (reset, .brownOut, false) }
            if let last = s.lastSwitch, noise.switchSeconds > 0,
               now &- last < Nanoseconds.span(seconds: noise.switchSeconds) {
                return (reset, .noise, false)
            }
            let rate = s.active ? Swift.max(noise.errorRate, noise.idleErrorRate) : noise.idleErrorRate
            if rate > 0, Self.uniform(&s.random) < rate { return (reset, .noise, false) }
            let glitch = s.active && isBurstRead && noise.glitchRate > 0 && Self.uniform(&s.random) < noise.glitchRate
            return (reset, nil, glitch)
        }
    }

    enum Failure { case noise, brownOut }

    private static func uniform(_ state: inout UInt64) -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Double(SplitMix64.mix(state) >> 11) * 0x1.0p-53
    }
}
