import Foundation
import Synchronization
import TiltboardCore
import TiltboardDrivers

/// How the tilt loop rides out a failing bus (`TiltLoop.Configuration.recovery`).
package struct BusRecoverySettings: Sendable, Equatable {
    /// Reads of a sample (or a FIFO batch) within one tick before the sensor counts as lost.
    package var attemptsPerTick: Int
    /// Seconds without a sample after which `TiltLoop.run` gives up with `SensorLostError`.
    package var giveUpAfterSeconds: Double
    /// Seconds between the one-byte reads that check the chip still holds its configuration, for
    /// a reset that caused no bus error and left readable data behind (a brown-out between ticks).
    package var healthCheckSeconds: Double

    package init(attemptsPerTick: Int = 3, giveUpAfterSeconds: Double = 10, healthCheckSeconds: Double = 1) {
        self.attemptsPerTick = attemptsPerTick
        self.giveUpAfterSeconds = giveUpAfterSeconds
        self.healthCheckSeconds = healthCheckSeconds
    }
}

/// The bus trouble a loop ran into (`TiltLoop.busStatistics`).
public struct BusStatistics: Sendable, Equatable {
    /// Failed transactions, whether a retry then succeeded or not.
    public var busErrors = 0
    /// Times the sensor was lost: every read of a tick failed, or the chip had reset.
    public var outages = 0
    /// Times the chip had reset and was configured again.
    public var reconfigurations = 0

    /// None yet.
    public init() {}
}

/// What happened to the sensor while the loop ran; `t` is seconds since the loop started.
public enum SensorEvent: Sendable {
    /// No sample since `t`, for `error`: the motor is off and the loop keeps its schedule, trying
    /// again each tick.
    case lost(t: Double, error: any Error)
    /// Samples again from `t`; `reconfigured` when the chip had reset and was set up again.
    case back(t: Double, reconfigured: Bool)
}

/// The sensor gave no sample for the loop's give-up span on end: what `RunningLoop.wait()`
/// throws when the loop gave up on it.
public struct SensorLostError: Error, Sendable, CustomStringConvertible {
    /// The chip's part name, e.g. `MPU-6050`.
    public var part: String
    /// The bus it is on, e.g. `/dev/i2c-1` or `simulated`.
    public var bus: String
    /// Its 7-bit I²C address.
    public var address: UInt8
    /// How long it gave no sample, seconds.
    package var seconds: Double
    /// How long it gave no sample.
    public var span: Duration { Nanoseconds.duration(seconds: seconds) }
    /// The last failure seen.
    public var lastError: (any Error)?

    /// The error for `part` at `address` on `bus`, silent for `seconds`, whose last failure was `lastError`.
    package init(part: String, bus: String, address: UInt8, seconds: Double, lastError: (any Error)?) {
        self.part = part; self.bus = bus; self.address = address; self.seconds = seconds; self.lastError = lastError
    }

    /// The structured form for logs: the chip, the bus, the span and the last error.
    public var description: String {
        "SensorLostError(\(part), address: \(address.hex), bus: \(bus), seconds: \(seconds), lastError: \(lastError.map { "\($0)" } ?? "nil"))"
    }
}

/// Takes each tick's samples from the sensor and rides out the bus: a failed read is retried
/// within the tick; when every attempt fails, or the chip turns out to have reset, the sensor is
/// lost (`SensorEvent.lost`), and each later tick tries to restore it (`restore`: same chip ID,
/// configuration still held, else configured again) until it is back or
/// `giveUpAfterSeconds` have passed. No sample is made up meanwhile.
///
/// A reset is noticed by a one-byte configuration read: once every `healthCheckSeconds`, after a
/// tick with a bus error, when a read gives exactly zero on every axis (a reset chip's data
/// registers), or when the FIFO stays empty for two sample periods. Nothing is allocated unless
/// something fails. Loop thread only, apart from `statistics`.
package final class SensorRecovery {
    let sensor: MotionSensor
    let clock: MonotonicClock
    let settings: BusRecoverySettings
    /// Gets a lost sensor back (`TiltLoop.Configuration.restoreSensor`).
    let restore: () throws -> Bool
    private let stats = Mutex(BusStatistics())
    /// Time the process has spent stopped by job control so far: not the sensor's outage. None
    /// unless the program says (the library watches no signals of its own).
    let stoppedNanoseconds: () -> UInt64
    /// Clock time the sensor was lost, nil while it delivers.
    private var lostSince: UInt64?
    private var stoppedAtLoss: UInt64 = 0
    private var lastError: Error?
    private var nextCheck: UInt64?
    /// Clock time of the last FIFO batch that held samples.
    private var lastSamples: UInt64 = 0
    /// Clock time loop time counts from (sample and event times are seconds since it): set once,
    /// when a run starts.
    package var start: UInt64 = 0
    /// A chip found reset is configured again in the tick that found it (true), or from the next
    /// tick on, like any lost sensor (false: a loop group restores on a thread of its own).
    package var restoresAtOnce = true

    /// True from a loss until the sensor is back.
    package var isLost: Bool { lostSince != nil }

    package init(sensor: MotionSensor, clock: MonotonicClock, settings: BusRecoverySettings = BusRecoverySettings(),
         stoppedNanoseconds: @escaping () -> UInt64 = { 0 }, restore: (() throws -> Bool)? = nil) {
        self.sensor = sensor
        self.clock = clock
        self.settings = settings
        self.stoppedNanoseconds = stoppedNanoseconds
        self.restore = restore ?? { try SensorRecovery.reconfigureIfReset(sensor) }
    }

    /// Checks that the chip answering is the one identified at open and that it still holds its
    /// configuration; a chip that reset is configured again (true).
    static func reconfigureIfReset(_ sensor: MotionSensor) throws -> Bool {
        try sensor.reidentify()
        do {
            try sensor.checkConfiguration()
            return false
        } catch SensorError.configurationLost {
            try sensor.configure(sensor.configuration)
            return true
        }
    }

    /// Callable from any thread.
    var statistics: BusStatistics { stats.withLock { $0 } }

    /// One tick at clock time `now`: calls `body` for each sample read, none while the sensor is
    /// lost, and `events` when it is lost or back. Throws `SensorLostError` when giving up, and
    /// errors no retry can help (a bus that refuses the transfer).
    package func tick(at now: UInt64, events: (SensorEvent) -> Void, _ body: (Sample) -> Void) throws {
        let t = Nanoseconds.seconds(from: start, to: now)
        if lostSince != nil {
            // A tick that brings the sensor back reads nothing: its time went on reconfiguring.
            try restore(t: t, now: now, events: events)
            return
        }
        if nextCheck == nil { nextCheck = now &+ checkInterval; lastSamples = now }
        var failures = 0
        while true {
            do {
                try read(at: t, now: now, check: failures > 0 || now >= nextCheck ?? 0, body)
                return
            } catch let error as I2CError where Self.isTransient(error) {
                failures += 1
                stats.withLock { $0.busErrors += 1 }
                guard failures >= settings.attemptsPerTick else { continue }
                lose(t: t, now: now, error, events: events)
                return
            } catch let error as SensorError {
                guard case .configurationLost = error else { throw error }
                lose(t: t, now: now, error, events: events)
                // The chip answers: set it up again at once.
                if restoresAtOnce { try restore(t: t, now: now, events: events) }
                return
            }
        }
    }

    private func read(at t: Double, now: UInt64, check: Bool, _ body: (Sample) -> Void) throws {
        if sensor.configuration.useFIFO {
            if check { try checkConfiguration(now) }
            if try sensor.drainFIFO(at: t, body) > 0 {
                lastSamples = now
            } else if Double(now &- lastSamples) > 2e9 / sensor.actualRateHz {
                // A reset chip's FIFO is off and empty.
                try checkConfiguration(now)
                lastSamples = now
            }
        } else {
            let sample = try sensor.read(at: t)
            // After a reset the data registers read zero (the data registers' reset value is 0x00 in both parts' register maps): look before using it.
            if check || sample.accel == .zero { try checkConfiguration(now) }
            body(sample)
        }
    }

    private func checkConfiguration(_ now: UInt64) throws {
        try sensor.checkConfiguration()
        nextCheck = now &+ checkInterval
    }

    private var checkInterval: UInt64 { Nanoseconds.span(seconds: Swift.min(settings.healthCheckSeconds, 1e9)) }

    private func lose(t: Double, now: UInt64, _ error: Error, events: (SensorEvent) -> Void) {
        lostSince = now
        stoppedAtLoss = stoppedNanoseconds()
        lastError = error
        stats.withLock { $0.outages += 1 }
        events(.lost(t: t, error: error))
    }

    /// One attempt at getting the sensor back; gives up once it has been lost long enough.
    private func restore(t: Double, now: UInt64, events: (SensorEvent) -> Void) throws {
        do {
            let reconfigured = try restore()
            let back = clock.nowNanoseconds()
            lostSince = nil
            nextCheck = back &+ checkInterval
            lastSamples = back
            if reconfigured { stats.withLock { $0.reconfigurations += 1 } }
            events(.back(t: t + Nanoseconds.seconds(from: now, to: back), reconfigured: reconfigured))
            return
        } catch let error as I2CError where Self.isTransient(error) {
            stats.withLock { $0.busErrors += 1 }
            lastError = error
        } catch let error as SensorError {
            // Another ID (a glitch, or another part), or a configuration that does not hold.
            lastError = error
        }
        guard let since = lostSince else { return }
        // A Ctrl-Z during the outage is the user's pause, not the sensor's.
        let lost = now &- since
        guard Nanoseconds.seconds(lost &- Swift.min(lost, stoppedNanoseconds() &- stoppedAtLoss)) >= settings.giveUpAfterSeconds else { return }
        let identity = sensor.identity
        throw SensorLostError(part: identity.part, bus: identity.bus, address: identity.address,
                              seconds: settings.giveUpAfterSeconds, lastError: lastError)
    }

    /// Failures a later transaction may not repeat; the rest (no such bus, no permission, a
    /// transfer the adapter cannot do) will not go away by trying again.
    private static func isTransient(_ error: I2CError) -> Bool {
        switch error.kind {
        case .noSuchBus, .permissionDenied, .unsupported: return false
        default: return true
        }
    }
}
