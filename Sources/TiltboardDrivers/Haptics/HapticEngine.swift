import Foundation
import TiltboardCore

/// Drives the vibration motor's GPIO line from its own thread, playing `HapticEffect`s.
///
/// `play` and `cancel` only post a request and wake the thread, so a control loop never waits on
/// the motor. The thread applies `HapticPlayer`'s level at each change and sleeps on a condition
/// variable until the next change or the next request. Call `shutdown()` before exiting: it
/// leaves the line inactive and released.
///
/// The engine is the motor's output: every level reaches the line through its on-time cap
/// (`MotorCapSettings`), which sums the line's actual on-time over a stretch, PWM included, and
/// imposes a rest when the stretch is full — across effects, repeats and callers, since they all
/// play through here. An effect's timeline runs on through a rest: a long request resumes after it.
public final class HapticEngine: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `condition` (requests, flags) or by `serviceLock`
    // (the player and the line level), as noted on each.

    /// The motor's line; the engine owns it until `shutdown()` releases it.
    public let line: GPIOOutputLine
    /// The clock effects are timed by.
    public let clock: MonotonicClock
    /// The on-time cap every level goes through.
    public let cap: MotorCapSettings
    /// PWM carrier for strengths below 1.
    public let carrierHz: Double

    private enum Request {
        case play(HapticEffect)
        case cancel
    }

    /// Timed on `clock`, so a virtual clock waits for the engine's thread.
    private let condition: ClockCondition
    // Guarded by `condition`.
    private var pending: Request?
    private var shuttingDown = false
    private var threadRunning = false
    private var threadStarted = false
    private var active = false
    private var lineFailure: (any Error)?
    private var tripCount = 0
    private var suspended = false
    /// Set by `resume()` until the thread services again: a resume that lands while the thread
    /// is between a service and its wait (e.g. frozen there by the stop) is not lost.
    private var resumed = false

    private let serviceLock = NSLock()
    // Guarded by `serviceLock`.
    private var player: HapticPlayer
    private var lineLevel: Bool?
    private var motorCap: MotorCap
    private let capTripped: @Sendable () -> Void

    /// Creates the engine and, unless `startsThread` is false, its thread, which drives the line
    /// inactive before this returns (without a thread, the first service does). `capTripped` runs
    /// on the servicing thread each time the cap turns the motor off (or keeps it off) against a request.
    /// `startsThread: false` leaves the stepping to the caller through `service(now:)`, which
    /// makes every edge deterministic under a `ManualClock`.
    public init(line: GPIOOutputLine, clock: MonotonicClock, cap: MotorCapSettings = MotorCapSettings(),
                carrierHz: Double = 200, startsThread: Bool = true, capTripped: @escaping @Sendable () -> Void = {}) {
        self.line = line
        self.clock = clock
        self.cap = cap
        self.carrierHz = carrierHz
        self.capTripped = capTripped
        condition = clock.makeCondition()
        motorCap = MotorCap(cap)
        player = HapticPlayer(carrierHz: carrierHz)
        if startsThread {
            threadRunning = true
            let thread = Thread { [self] in clock.takingPart { self.threadMain() } }
            thread.name = "tiltboard-haptics"
            thread.start()
            // Once the thread takes part in the clock's time, a request is served at the time it is made.
            condition.lock()
            while !threadStarted { condition.wait(untilNanoseconds: nil) }
            condition.unlock()
        }
    }

    /// Starts `effect`, replacing the one playing. Returns at once; never blocks on the motor.
    /// Ignored after `shutdown()`.
    public func play(_ effect: HapticEffect) {
        post(.play(effect))
    }

    /// Stops the effect playing; the line goes inactive at once.
    public func cancel() {
        post(.cancel)
    }

    private func post(_ request: Request) {
        condition.lock()
        if !shuttingDown {
            pending = request
            if case .play = request { active = true }
            condition.signal()
        }
        condition.unlock()
    }

    /// Turns the motor off at once and keeps it off until `resume()`, for a process about to be
    /// stopped (Ctrl-Z). The effect's time runs on meanwhile: after `resume()` the motor does
    /// what the effect asks for then, and the time off counts as a rest.
    public func suspend() {
        condition.lock()
        suspended = true
        condition.unlock()
        service(now: clock.nowNanoseconds())
    }

    /// Lets the motor follow the effect again after `suspend()`.
    public func resume() {
        condition.lock()
        suspended = false
        resumed = true
        condition.signal()
        condition.unlock()
    }

    /// True while an effect is queued or playing, or the line is active.
    public var isActive: Bool {
        condition.lock(); defer { condition.unlock() }
        return active
    }

    /// The last failure to set the line, if any (the line's own error, e.g. `GPIOError`).
    public var lastError: (any Error)? {
        condition.lock(); defer { condition.unlock() }
        return lineFailure
    }

    /// How many times the on-time cap has turned the motor off (or kept it off) against a request.
    public var capTrips: Int {
        condition.lock(); defer { condition.unlock() }
        return tripCount
    }

    /// Applies pending requests and the level due at `now` (clock nanoseconds) to the line, and
    /// returns when the level next changes (nil: nothing to do until a new request).
    /// Called by the engine's thread; call it yourself only on an engine made with `startsThread: false`.
    @discardableResult
    public func service(now: UInt64) -> UInt64? {
        serviceLock.lock(); defer { serviceLock.unlock() }
        condition.lock()
        let request = pending
        pending = nil
        let stopping = shuttingDown
        let off = suspended
        condition.unlock()
        if stopping { return nil }

        let t = Nanoseconds.seconds(now)
        switch request {
        case let .play(effect)?: player.play(effect, at: t)
        case .cancel?: player.cancel(at: t)
        case nil: break
        }
        player.advance(to: t)
        let trips = motorCap.trips
        let level = motorCap.admit(player.level(at: t) && !off, at: now)
        let failure = write(level, now: now)
        if failure != nil, level {
            player.cancel(at: t)
            _ = write(false, now: now)
        }
        var next = player.nextChange(after: t).map { Nanoseconds.span(seconds: $0, rounded: .toNearestOrAwayFromZero) }
        // A cap deadline already passed means the line refused to go off: retried at the next
        // change rather than in a spin.
        if let capNext = motorCap.nextChange, capNext > now { next = Swift.min(next ?? .max, capNext) }

        condition.lock()
        active = pending != nil || player.isPlaying || lineLevel == true
        tripCount = motorCap.trips
        if let failure { lineFailure = failure }
        condition.unlock()
        if motorCap.trips != trips { capTripped() }
        return next
    }

    /// Sets the line when its level changes; returns the line's error if it refused.
    private func write(_ level: Bool, now: UInt64) -> (any Error)? {
        guard lineLevel != level else { return nil }
        do {
            try line.set(active: level)
            lineLevel = level
            motorCap.lineSet(level, at: now)
            return nil
        } catch {
            // Unknown state after a failed write: try again next time.
            lineLevel = nil
            return error
        }
    }

    /// Drives the line inactive, releases it and stops the thread. Safe to call more than once and
    /// from any thread (e.g. a signal watcher). Every call returns only once the thread has
    /// stopped and the line is off: a second caller that returned earlier (and let the process
    /// exit) could otherwise be overtaken by a level the thread was still writing.
    public func shutdown() {
        condition.lock()
        let first = !shuttingDown
        shuttingDown = true
        pending = nil
        condition.broadcast()
        while threadRunning { condition.wait(untilNanoseconds: nil) }
        active = false
        condition.unlock()
        try? line.set(active: false)
        if first { line.release() }
    }

    private func threadMain() {
        // The line is inactive before the engine is handed out, whatever is asked of it first.
        service(now: clock.nowNanoseconds())
        condition.lock()
        threadStarted = true
        condition.broadcast()
        while !shuttingDown {
            condition.unlock()
            let next = service(now: clock.nowNanoseconds())
            condition.lock()
            if shuttingDown || pending != nil || resumed { resumed = false; continue }
            if next.map({ $0 > clock.nowNanoseconds() }) ?? true {
                condition.wait(untilNanoseconds: next)
            }
        }
        threadRunning = false
        condition.broadcast()
        condition.unlock()
    }
}
