import TiltboardCore
import TiltboardDrivers

/// The wiring check for motor noise (`tiltboard doctor --motor-noise`): reads the sensor at full
/// rate, first with the motor off, then while the motor is pulsed, and counts what goes wrong
/// on the bus and in the samples, sorted by what each points at:
///
/// - failed transactions with the motor off: the bus is marginal by itself (pull-ups);
/// - failed transactions just after the motor switches: the coil's spike (no flyback diode);
/// - failed transactions while the motor runs: noise at the bus's speed (a lower bus clock);
/// - outages (no sample for `outageSeconds`, or the chip found reset): the supply sags under
///   the motor's start current (a separate supply or a capacitor);
/// - implausible jumps, a sample far from both its neighbours: corrupted data (a shorter or
///   twisted cable).
///
/// The motor line is driven directly, each pulse within the board's on-time cap. The check runs
/// on the calling thread, on `clock`, and never plays the motor beyond `settings`.
package struct MotorNoiseCheck {
    package struct Settings: Sendable, Equatable {
        /// Sampling with the motor off before the first pulse.
        package var quietSeconds = 1.0
        package var pulses = 6
        package var onSeconds = 0.25
        /// The cap's default rest (`MotorCapSettings`), so each pulse is a stretch of its own.
        package var offSeconds = 0.5
        /// A failure this soon after the motor switched (on or off) is a switching error.
        package var switchWindowSeconds = 0.02
        /// No sample for this long is an outage (a chip found reset is one at any length).
        package var outageSeconds = 0.05
        /// A sample further than this from the mean of its two neighbours, on any axis, is an
        /// implausible jump. A vibration of amplitude A at frequency f sampled at fs departs at
        /// most A·(1 − cos 2πf/fs) from that mean: 0.69 A for an ERM's 200 Hz at 1 kHz, so a
        /// motor shaking the board by 1 g stays under it while a flipped high bit does not.
        package var jumpG = 0.75
        /// The fastest sampling asked of the chip.
        package var maxRateHz = 1000.0

        package init() {}

        /// These settings with pulses no longer than the cap allows in one stretch and rests
        /// long enough to end a stretch (`MotorCapSettings`), so the cap never cuts a pulse.
        package func fitted(to cap: MotorCapSettings) -> Settings {
            var s = self
            s.onSeconds = Swift.min(onSeconds, cap.maxOnSeconds)
            s.offSeconds = Swift.max(offSeconds, cap.minRestSeconds)
            return s
        }

        /// How long the check samples.
        package var totalSeconds: Double { quietSeconds + Double(pulses) * (onSeconds + offSeconds) }
    }

    /// What the check counted.
    package struct Report: Sendable, Equatable {
        /// What the check was run with.
        package var settings = Settings()
        package var rateHz = 0.0
        package var seconds = 0.0
        /// Ticks of the sampling loop, and the samples read in them.
        package var ticks = 0
        package var samples = 0
        package var pulses = 0
        package var motorOnSeconds = 0.0
        /// Failed transactions with the motor off, away from a switch and outside an outage, and
        /// the ticks that were so.
        package var idleErrors = 0
        package var idleTicks = 0
        /// Failed transactions within `switchWindowSeconds` of a switch, outside an outage, and
        /// the ticks that were so.
        package var switchingErrors = 0
        package var switchingTicks = 0
        /// Failed transactions while the motor ran, away from a switch and outside an outage, and
        /// the ticks that were so.
        package var runningErrors = 0
        package var runningTicks = 0
        package var outages = 0
        package var longestOutageSeconds = 0.0
        /// Outages in which the chip had reset and was configured again.
        package var resets = 0
        package var jumps = 0
        package var largestJumpG = 0.0

        package init() {}

        /// Every failed transaction counted outside outages.
        package var busErrors: Int { idleErrors + switchingErrors + runningErrors }

        /// Whether the motor made bus errors while it ran: more than the motor-off rate explains.
        package var runningFound: Bool {
            Self.exceeds(runningErrors, expected: rate(idleErrors, idleTicks) * Double(runningTicks))
        }

        /// Whether the motor's switching made bus errors: more in the windows after a switch than
        /// the rest of the time explains (the motor-off or the running rate, the higher).
        package var switchingFound: Bool {
            let baseline = Swift.max(rate(idleErrors, idleTicks), rate(runningErrors, runningTicks))
            return Self.exceeds(switchingErrors, expected: baseline * Double(switchingTicks))
        }

        private func rate(_ errors: Int, _ ticks: Int) -> Double { ticks > 0 ? Double(errors) / Double(ticks) : 0 }

        /// `count` is more than chance explains where `expected` arise on average: any at all
        /// when none are expected, else over 2·expected + 3 (for a Poisson count with mean 6,
        /// above 15 happens about once in a thousand runs).
        static func exceeds(_ count: Int, expected: Double) -> Bool {
            expected == 0 ? count > 0 : Double(count) > 2 * expected + 3
        }
    }

    package var settings: Settings

    package init(settings: Settings = Settings()) { self.settings = settings }

    /// The sampling rate for `chip`: its fastest, at most `settings.maxRateHz`; on a known bus
    /// clock also within the data sheet's advice below fast mode and within half the bus
    /// (`Doctor.maxBusLoad`), so the loop keeps up.
    package func rateHz(chip: ChipKind, busClockHz: Int?) -> Double {
        let details = chip.details
        var rate = Swift.min(details.rateRangeHz.upperBound, settings.maxRateHz)
        if let hz = busClockHz, hz > 0 {
            if let advised = details.maxRateHzBelowFastBus, hz < details.maxBusClockHz { rate = Swift.min(rate, advised) }
            let perSample = Doctor.busLoad(chip: chip, rateHz: 1, clockHz: hz)
            rate = Swift.min(rate, (Doctor.maxBusLoad / perSample).rounded(.down))
        }
        return Swift.max(rate, details.rateRangeHz.lowerBound)
    }

    /// Samples `sensor` (opened on `bus`) at `rateHz` while pulsing `motor`, and counts. The
    /// sensor is configured with `configuration` at that rate, without its FIFO (every read is
    /// one transaction at one time). The motor is off when this returns or throws; it stops
    /// early when `shouldStop` says so (the counts so far are returned).
    package func run(sensor: MotionSensor, bus: FailureTimingBus, configuration: SensorConfiguration, rateHz: Double,
                    motor: GPIOOutputLine, clock: MonotonicClock, shouldStop: () -> Bool = { false }) throws -> Report {
        var config = configuration
        config.rateHz = rateHz
        config.useFIFO = false
        try sensor.configure(config)
        defer { try? motor.set(active: false) }
        return try clock.takingPart {
            try sample(sensor: sensor, bus: bus, rateHz: sensor.actualRateHz, motor: motor, clock: clock, shouldStop: shouldStop)
        }
    }

    private func sample(sensor: MotionSensor, bus: FailureTimingBus, rateHz: Double, motor: GPIOOutputLine,
                        clock: MonotonicClock, shouldStop: () -> Bool) throws -> Report {
        var report = Report()
        report.settings = settings
        report.rateHz = rateHz
        let s = settings
        let recovery = SensorRecovery(sensor: sensor, clock: clock,
                                      settings: BusRecoverySettings(attemptsPerTick: 1, giveUpAfterSeconds: .infinity,
                                                                    healthCheckSeconds: 0.1))
        let start = clock.nowNanoseconds()
        recovery.start = start
        bus.reset()
        let ns = { (seconds: Double) in start &+ Nanoseconds.span(seconds: seconds) }
        // Switch times, the motor's on-spans and the outages, in clock nanoseconds.
        var switches: [UInt64] = []
        var onSpans: [(UInt64, UInt64)] = []
        var outages: [(UInt64, UInt64)] = []
        var lostAt: UInt64?
        var tickTimes: [UInt64] = []
        tickTimes.reserveCapacity(Int((s.totalSeconds * rateHz).rounded(.up)) + 16)
        var active = false
        // A stop (a signal) may switch the motor off and release its line from another thread
        // at any moment: a failed switch then ends the sampling instead of failing the check.
        var released = false
        func drive(_ on: Bool, at now: UInt64) throws {
            guard on != active, !released else { return }
            do { try motor.set(active: on) } catch {
                guard shouldStop() else { throw error }
                released = true
                return
            }
            active = on
            switches.append(now)
            if on { onSpans.append((now, .max)) } else if let last = onSpans.indices.last { onSpans[last].1 = now }
        }
        // The last two samples, for the jump test on the one between them.
        var previous: Vector3?, middle: Vector3?
        let end = ns(s.totalSeconds)
        let scheduler = FixedRateScheduler(rateHz: rateHz, clock: clock)
        try scheduler.run(shouldStop: { released || shouldStop() || clock.nowNanoseconds() >= end }) { tick in
            let now = tick.wakeTime
            let intoPulses = Nanoseconds.seconds(from: ns(s.quietSeconds), to: now)
            if now >= ns(s.quietSeconds), intoPulses >= 0 {
                let period = s.onSeconds + s.offSeconds
                let pulse = Int((intoPulses / period).rounded(.down))
                let on = pulse < s.pulses && intoPulses - Double(pulse) * period < s.onSeconds
                try drive(on, at: now)
                if on { report.pulses = Swift.max(report.pulses, pulse + 1) }
            }
            report.ticks += 1
            tickTimes.append(now)
            try recovery.tick(at: now, events: { event in
                switch event {
                case .lost: lostAt = now
                case let .back(_, reconfigured):
                    let back = clock.nowNanoseconds()
                    let from = lostAt ?? now
                    if reconfigured || Nanoseconds.seconds(from: from, to: back) >= s.outageSeconds {
                        outages.append((from, back))
                        if reconfigured { report.resets += 1 }
                    }
                    lostAt = nil
                    // No jump across an outage.
                    previous = nil; middle = nil
                }
            }) { sample in
                report.samples += 1
                if let p = previous, let m = middle {
                    let mean = (p + sample.accel) * 0.5
                    let d = m - mean
                    let departure = Swift.max(Swift.abs(d.x), Swift.abs(d.y), Swift.abs(d.z))
                    if departure > s.jumpG {
                        report.jumps += 1
                        report.largestJumpG = Swift.max(report.largestJumpG, departure)
                    }
                }
                previous = middle
                middle = sample.accel
            }
        }
        let stop = clock.nowNanoseconds()
        try drive(false, at: stop)
        if let from = lostAt, Nanoseconds.seconds(from: from, to: stop) >= s.outageSeconds { outages.append((from, stop)) }
        report.seconds = Nanoseconds.seconds(from: start, to: stop)
        report.outages = outages.count
        report.longestOutageSeconds = outages.map { Nanoseconds.seconds(from: $0.0, to: $0.1) }.max() ?? 0
        report.motorOnSeconds = onSpans.reduce(0) { $0 + Nanoseconds.seconds(from: $1.0, to: Swift.min($1.1, stop)) }
        let window = Nanoseconds.span(seconds: s.switchWindowSeconds)
        // Where a time falls: nil inside an outage, else idle, switching or running.
        enum Phase { case idle, switching, running }
        func phase(_ t: UInt64) -> Phase? {
            if outages.contains(where: { $0.0 <= t && t <= $0.1 }) { return nil }
            if switches.contains(where: { $0 <= t && t &- $0 < window }) { return .switching }
            if onSpans.contains(where: { $0.0 <= t && t < $0.1 }) { return .running }
            return .idle
        }
        for t in bus.failureTimes {
            switch phase(t) {
            case .idle?: report.idleErrors += 1
            case .switching?: report.switchingErrors += 1
            case .running?: report.runningErrors += 1
            case nil: break
            }
        }
        for t in tickTimes {
            switch phase(t) {
            case .idle?: report.idleTicks += 1
            case .switching?: report.switchingTicks += 1
            case .running?: report.runningTicks += 1
            case nil: break
            }
        }
        return report
    }
}

/// Forwards every transaction to another bus and notes the clock time of each that failed, so
/// `MotorNoiseCheck` can tell when the bus failed relative to the motor.
package final class FailureTimingBus: I2CBus {
    package let base: I2CBus
    package let clock: MonotonicClock
    /// Clock nanoseconds of each failed transaction since `reset()`, oldest first.
    package private(set) var failureTimes: [UInt64] = []

    package init(_ base: I2CBus, clock: MonotonicClock) {
        self.base = base
        self.clock = clock
        failureTimes.reserveCapacity(1 << 16)
    }

    package var name: String { base.name }

    package func transfer(address: UInt8, write: UnsafeRawBufferPointer, read: UnsafeMutableRawBufferPointer,
                         pattern: I2CReadPattern) throws {
        do {
            try base.transfer(address: address, write: write, read: read, pattern: pattern)
        } catch {
            failureTimes.append(clock.nowNanoseconds())
            throw error
        }
    }

    /// Forgets the failures so far.
    package func reset() { failureTimes.removeAll(keepingCapacity: true) }

    package func close() { base.close() }
}
