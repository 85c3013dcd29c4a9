import Foundation
import Synchronization
import TiltboardCore
import TiltboardDrivers

/// What a loop's observer hears besides samples, on the loop thread.
public enum LoopEvent: Sendable {
    /// The sensor was lost or is back (`SensorEvent`).
    case sensor(SensorEvent)
    /// The loop went to sleep on the interrupt pin or woke (`WakeEvent`).
    case wake(WakeEvent)
}

/// Hears a running loop, on the loop thread: every sample in order, and each `LoopEvent`.
public struct LoopObserver {
    /// Hears every sample, with the tick it was taken at.
    public var sample: (PipelineOutput, TickContext) -> Void
    /// Hears every `LoopEvent`.
    public var event: (LoopEvent) -> Void

    /// An observer of samples, events or both (each defaults to nothing).
    public init(sample: @escaping (PipelineOutput, TickContext) -> Void = { _, _ in },
                event: @escaping (LoopEvent) -> Void = { _ in }) {
        self.sample = sample
        self.event = event
    }
}

/// How the loop thread is scheduled: `prepare` runs on it before the first tick (real-time
/// scheduling, timer slack: the program's choice) and returns a note when something it asked
/// for was refused.
package struct LoopThreadPolicy: Sendable {
    package var prepare: @Sendable () -> String?

    package init(prepare: @escaping @Sendable () -> String?) { self.prepare = prepare }

    /// The scheduling the starting thread has.
    package static let inherited = LoopThreadPolicy { nil }
}

/// Periodic work beside the loop: `poll` runs every `interval` on a thread of its own (on the
/// loop's clock), never on the loop thread; what it returns is posted to the loop's mailbox
/// (`RunningLoop.perform`): it runs on the loop thread at the next tick boundary (before that
/// tick's read), and again at the following ones while it throws and nothing newer arrived.
/// `BoardSession.profileWatch` is one.
public struct LoopWatch: Sendable {
    /// How often `poll` runs (at least 10 ms).
    public var interval: Duration
    /// Looks for work; nil when there is none.
    public var poll: @Sendable () -> (@Sendable (TiltLoop) throws -> Void)?

    /// A watch polling every `interval` (10 ms at least).
    public init(interval: Duration = .seconds(1), poll: @escaping @Sendable () -> (@Sendable (TiltLoop) throws -> Void)?) {
        self.interval = Swift.max(interval, .milliseconds(10))
        self.poll = poll
    }
}

/// Waking on motion: `line` is the GPIO input wired to the sensor's INT pin.
package struct WakeOnMotion {
    package var settings: WakeOnMotionSettings
    package var line: GPIOInputLine

    package init(settings: WakeOnMotionSettings = WakeOnMotionSettings(), line: GPIOInputLine) {
        self.settings = settings
        self.line = line
    }
}

/// The main job's loop: at a fixed rate, read the sensor (or drain its FIFO), run each sample
/// through the pipeline, play the shake effect when a shake starts, and hand every result to the
/// observers — on a dedicated thread, with nothing allocated per tick.
///
/// It takes its parts ready-made: a configured sensor (any `MotionSensor`, on any `I2CBus`), the
/// clock that paces it, the pipeline and a `Configuration`. `BoardSession.makeLoop` builds one
/// from a board file and its calibration profile. `start` runs it and returns its handle.
public final class TiltLoop: @unchecked Sendable {
    /// What the loop does, fixed at creation.
    public struct Configuration {
        /// Ticks per second.
        public var rateHz: Double
        /// How the loop rides out bus failures.
        package var recovery = BusRecoverySettings()
        /// Sleep on the interrupt pin through still spells, or nil to sample throughout.
        package var wakeOnMotion: WakeOnMotion?
        /// How the loop thread is scheduled.
        package var threadPolicy = LoopThreadPolicy.inherited
        /// Time the process has spent stopped by job control (Ctrl-Z) so far, which an outage does
        /// not count towards `recovery.giveUpAfterSeconds` (the CLI: `SignalWatcher.shared`).
        package var stoppedNanoseconds: @Sendable () -> UInt64 = { 0 }
        /// Gets a lost sensor back: true when the chip had reset and was configured again. Nil:
        /// the chip's ID and configuration are checked and a chip that lost its configuration is
        /// configured again (`BoardSession.makeLoop` also re-programs its profile's offsets).
        package var restoreSensor: (() throws -> Bool)?
        /// Periodic work beside the loop (the profile watch).
        public var watch: LoopWatch?

        /// Hears why the shake detector took a run of half-cycles for a shake or not
        /// (`ShakeNote`), on the loop thread; nil costs nothing.
        package var shakeNotes: (@Sendable (ShakeNote) -> Void)?
        /// The configuration of a loop ticking `rateHz` times a second.
        public init(rateHz: Double) { self.rateHz = rateHz }
    }

    /// Read (or drained) at every tick, on the loop thread while it runs.
    public let sensor: MotionSensor
    /// Paces the ticks; sample times count from the start on it.
    public let clock: MonotonicClock
    /// What the loop was made with.
    package let configuration: Configuration
    package let scheduler: FixedRateScheduler
    /// Plays the board's shake effect on the motor; nil on a board without a motor.
    package let haptics: HapticEngine?
    package let shakeEffect: HapticEffect
    /// Owned by the loop thread while it runs.
    public private(set) var pipeline: TiltPipeline
    /// Samples processed so far.
    package private(set) var samples: UInt64 = 0
    /// Registered with `observe`, heard by every later run; under `lifecycle`.
    private var observers: [LoopObserver] = []
    /// The observers of the run under way (`observers`, `start`'s and those added since); loop
    /// thread only.
    private var observing: [LoopObserver] = []
    /// Orders `observe` against a run's start and end, so an observer added meanwhile is heard.
    private let lifecycle = NSLock()
    /// The run under way; loop thread only.
    private var running: RunningLoop?
    private let isRunning = Atomic<Bool>(false)
    private let wakeStats = Mutex(WakeStatistics())
    /// Set by `stop()`; a group's thread looks at it before each member's read.
    let stopRequested = Atomic<Bool>(false)
    /// The schedule of the group this loop last ran in (`TiltLoopGroup`), nil while it runs alone.
    private let groupSchedule = Mutex<FixedRateScheduler?>(nil)
    /// The run's stop for waits on the interrupt pin (made by the line), requested by `stop()`.
    private let wakeStop = Mutex<WakeStop?>(nil)
    let recovery: SensorRecovery
    /// The mailbox: work for the loop thread, run in order at the next tick boundary.
    private let mailbox = Mutex<[LoopWork]>([])
    /// True while the mailbox holds something: all a tick looks at when it is empty.
    private let workPending = Atomic<Bool>(false)
    let watchStop = Atomic<Bool>(false)

    /// - Parameters:
    ///   - sensor: an identified and configured sensor. With its FIFO on, each tick drains every
    ///     waiting sample.
    ///   - clock: paces the ticks and times the samples; a `ManualClock` or `VirtualClock` runs
    ///     the loop without waiting.
    ///   - pipeline: calibration, tilt estimation, controller and shake detector.
    ///   - configuration: rate, bus recovery, wake on motion, thread policy, watch.
    ///   - haptics: the motor's engine, or nil to stay silent.
    ///   - shakeEffect: what the motor plays when a shake starts.
    public init(sensor: MotionSensor, clock: MonotonicClock, pipeline: TiltPipeline, configuration: Configuration,
                haptics: HapticEngine? = nil, shakeEffect: HapticEffect = .pulse(.milliseconds(150))) {
        self.sensor = sensor
        self.clock = clock
        self.configuration = configuration
        scheduler = FixedRateScheduler(rateHz: configuration.rateHz, clock: clock)
        self.haptics = haptics
        self.shakeEffect = shakeEffect
        self.pipeline = pipeline
        self.pipeline.shake.onNote = configuration.shakeNotes
        recovery = SensorRecovery(sensor: sensor, clock: clock, settings: configuration.recovery,
                                    stoppedNanoseconds: configuration.stoppedNanoseconds, restore: configuration.restoreSensor)
    }

    /// A loop at `rateHz` with the default configuration otherwise.
    public convenience init(sensor: MotionSensor, clock: MonotonicClock, pipeline: TiltPipeline, rateHz: Double,
                            haptics: HapticEngine? = nil, shakeEffect: HapticEffect = .pulse(.milliseconds(150))) {
        self.init(sensor: sensor, clock: clock, pipeline: pipeline, configuration: Configuration(rateHz: rateHz),
                  haptics: haptics, shakeEffect: shakeEffect)
    }

    /// Adds an observer, heard by this loop's every later run and, while it runs, from the next
    /// tick boundary on (handed to the loop thread through its mailbox). Callable from any thread.
    public func observe(_ observer: LoopObserver) {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        observers.append(observer)
        if isRunning.load(ordering: .acquiring) {
            post(LoopWork(addsObserver: true) { loop in loop.observing.append(observer) })
        }
    }

    /// Starts the loop on a thread of its own and returns its handle at once. It runs until the
    /// handle's (or the loop's) `stop()` is called, `duration` has passed, or the sensor gives up
    /// (`configuration.recovery`: a failed read is retried, a lost sensor restored, and only
    /// `giveUpAfterSeconds` without a sample end it with `SensorLostError`, which `wait()`
    /// throws). `observers` hear this run, after those added with `observe`. While the sensor is
    /// lost there are no samples. With `wakeOnMotion`, the loop sleeps on the interrupt pin
    /// through still spells (no ticks, no samples) and wakes only for an edge, the end of
    /// `duration` or `stop()`. Sample times keep counting from the start, across the gaps. Once a
    /// run has ended by its duration, the loop can be started again, where it left off.
    public func start(for duration: Duration? = nil, observers extra: [LoopObserver] = []) -> RunningLoop {
        let running = beginRun(observers: extra, group: nil)
        let durationNs = duration.map { Nanoseconds.span($0) }
        let thread = Thread { [self] in
            let note = configuration.threadPolicy.prepare()
            var failure: Error?
            do {
                try self.clock.takingPart {
                    self.startWatcher()
                    defer { self.watchStop.store(true, ordering: .releasing) }
                    try self.loop(durationNs: durationNs)
                }
            } catch { failure = error }
            endRun(running, note: note, error: failure)
        }
        thread.name = "tiltboard-loop"
        thread.stackSize = 1 << 20
        thread.start()
        return running
    }

    /// Marks the loop running and makes the run's handle: `observers` hear it after those added
    /// with `observe`; `group` is the schedule of the group it runs in (nil: its own).
    func beginRun(observers extra: [LoopObserver], group: FixedRateScheduler?) -> RunningLoop {
        lifecycle.lock()
        precondition(!isRunning.exchange(true, ordering: .acquiringAndReleasing), "the loop is already running")
        groupSchedule.withLock { $0 = group }
        let running = RunningLoop(loop: self)
        self.running = running
        observing = observers + extra
        // An observer added to an earlier run that ended before taking it is in `observers` now;
        // other work posted meanwhile waits for this run's first tick.
        mailbox.withLock { $0.removeAll(where: \.addsObserver) }
        lifecycle.unlock()
        return running
    }

    /// Marks the run over and tells its handle why.
    func endRun(_ running: RunningLoop, note: String?, error: Error?) {
        lifecycle.withLock { isRunning.store(false, ordering: .releasing) }
        running.finish(note: note, error: error)
    }

    /// The schedule's figures (ticks, missed, lateness) of the loop's last run: its own, or its
    /// group's when it ran in one. Callable from any thread.
    package var scheduleStatistics: LoopStatistics {
        (groupSchedule.withLock { $0 } ?? scheduler).statistics
    }

    /// Runs `work` on the loop thread at the next tick boundary (`RunningLoop.perform`); posted
    /// before a run starts, at its first tick.
    package func perform(_ work: @escaping @Sendable (TiltLoop) throws -> Void) {
        post(LoopWork(work))
    }

    /// Posts `work` to the loop thread (see `RunningLoop.perform`).
    func post(_ work: LoopWork) {
        mailbox.withLock { $0.append(work) }
        workPending.store(true, ordering: .releasing)
    }

    /// Sleeps, wakeups and time asleep so far; callable from any thread.
    package var wakeStatistics: WakeStatistics { wakeStats.withLock { $0 } }

    /// Bus errors, outages and reconfigurations so far; callable from any thread.
    public var busStatistics: BusStatistics { recovery.statistics }

    /// Ends the loop before its next tick, or at once while it sleeps on the pin (the wait wakes
    /// on the run's `WakeStop`); callable from any thread, an observer's or a signal watcher's
    /// included (`RunningLoop.stop` is the same).
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        scheduler.stop()
        // After the flag: a run that installs its stop later sees the flag before it waits.
        wakeStop.withLock { $0?.request() }
    }

    func startWatcher() {
        guard let watch = configuration.watch else { return }
        let poll = watch.poll
        watchStop.store(false, ordering: .releasing)
        let clock = clock
        let interval = Nanoseconds.span(watch.interval)
        let first = clock.nowNanoseconds() &+ interval
        let thread = Thread { [self] in
            clock.takingPart {
                var next = first
                while !watchStop.load(ordering: .acquiring) {
                    clock.sleep(untilNanoseconds: next)
                    next &+= interval
                    if watchStop.load(ordering: .acquiring) { break }
                    guard let work = poll() else { continue }
                    post(LoopWork(work))
                }
            }
        }
        thread.name = "tiltboard-watch"
        thread.start()
    }

    /// Loop thread: runs what the mailbox holds, in the order posted. A piece that throws (a bus
    /// error while programming offsets) is kept for the next tick, unless newer work arrived.
    private func runPendingWork() {
        workPending.store(false, ordering: .releasing)
        let taken = mailbox.withLock { m -> [LoopWork] in
            defer { m.removeAll(keepingCapacity: true) }
            return m
        }
        for (i, work) in taken.enumerated() {
            do {
                try work.body(self)
            } catch where i == taken.count - 1 {
                mailbox.withLock { if $0.isEmpty { $0.append(work) } }
                workPending.store(true, ordering: .releasing)
            } catch {}
        }
    }

    /// Replaces the software calibration and the neutral pose and re-centres: a profile changed
    /// on disk. Loop thread only.
    package func setCalibration(_ calibration: SensorCalibration, biasKnown: Bool, calibratedTempC: Double?,
                               neutral: NeutralPose) {
        pipeline.tracker.calibration = calibration
        pipeline.tracker.holdStill = HoldStill(biasKnown: biasKnown, calibratedTempC: calibratedTempC,
                                             settings: pipeline.tracker.holdStill.settings)
        pipeline.tracker.neutral = neutral
        pipeline.reset()
    }

    /// Makes the shake detector use `settings` from the next sample on (another sensitivity was
    /// chosen); loop thread only.
    public func setShakeSettings(_ settings: ShakeDetectorSettings) {
        guard settings != pipeline.shake.settings else { return }
        pipeline.shake.use(settings)
    }

    /// Replaces the neutral pose and re-centres (the monitor's `c`/`z` keys); loop thread only,
    /// i.e. from inside `output`.
    public func setNeutral(_ pose: NeutralPose) {
        pipeline.tracker.neutral = pose
        pipeline.reset()
    }

    private func loop(durationNs: UInt64?) throws {
        let clock = clock
        let start = clock.nowNanoseconds()
        recovery.start = start
        let end = durationNs.map { start &+ $0 }
        let ended = { end.map { clock.nowNanoseconds() >= $0 } ?? false }
        guard let wakeOnMotion = configuration.wakeOnMotion else {
            try scheduler.run(shouldStop: ended) { tick in try step(tick) }
            return
        }
        // Sampling runs in stretches: each ends when the board has been still long enough, the
        // loop sleeps on the pin, and a new stretch (new tick grid) starts on motion.
        let wake = wakeOnMotion.settings, line = wakeOnMotion.line
        let stop = try line.makeWakeStop()
        wakeStop.withLock { $0 = stop }
        defer { wakeStop.withLock { $0 = nil } }
        var idle = IdleTracker(settings: wake)
        var goIdle = false
        while true {
            try scheduler.run(shouldStop: { goIdle || ended() }) { tick in
                if workPending.load(ordering: .acquiring) { runPendingWork() }
                try recovery.tick(at: tick.wakeTime, events: { sensorEvent($0) }) { raw in
                    let out = handle(raw, tick)
                    if idle.update(t: out.t, accel: out.accel, shaking: out.shaking) { goIdle = true }
                }
            }
            guard goIdle else { return }
            goIdle = false
            let woke = try sleepUntilMotion(line: line, stop: stop, settings: wake, start: start, end: end)
            guard woke else { return }
            pipeline.resumeAfterGap()
            idle.restart()
        }
    }

    /// Arms the chip, clears what is already latched and waits on the pin until the chip reports
    /// motion (true), or a stop or the end of the run (false). The only wake-ups are an edge,
    /// `stop` (requested by `stop()`) and the end of the run. A bus failure also returns true:
    /// the sampling path rides it out.
    private func sleepUntilMotion(line: GPIOInputLine, stop: WakeStop, settings: WakeOnMotionSettings, start: UInt64,
                                  end: UInt64?) throws -> Bool {
        do {
            try sensor.armMotionInterrupt(thresholdG: settings.thresholdG)
            // Edges queued while awake are stale, and so is a flag latched then (the board has been
            // still since): drop both, in this order, so that motion from now on raises a fresh edge
            // — one arriving between the two stays queued and leads to a look at the flag.
            try line.discardQueuedEdges()
            _ = try sensor.acknowledgeMotionInterrupt()
        } catch is I2CError {
            return true
        }
        let asleepAt = clock.nowNanoseconds()
        wakeStats.withLock { $0.sleeps += 1 }
        notify(.wake(.sleeping(t: Nanoseconds.seconds(from: start, to: asleepAt))))
        var woke = false
        while !woke {
            if stopRequested.load(ordering: .acquiring) || stop.isRequested { break }
            if let end, clock.nowNanoseconds() >= end { break }
            if try line.waitForEdge(until: end, on: clock, stop: stop) == .edge {
                // Another source could share the line: only the chip's own flag counts.
                woke = (try? sensor.acknowledgeMotionInterrupt()) ?? true
            }
        }
        let now = clock.nowNanoseconds()
        let asleep = Nanoseconds.seconds(from: asleepAt, to: now)
        wakeStats.withLock {
            $0.idleSeconds += asleep
            if woke { $0.wakeups += 1 }
        }
        if woke {
            notify(.wake(.woke(t: Nanoseconds.seconds(from: start, to: now), asleep: Nanoseconds.duration(now &- asleepAt))))
            do {
                try sensor.disarmMotionInterrupt()
            } catch is I2CError {
                // The sampling path rides it out, and configures a chip found changed again.
            }
        }
        return woke
    }

    /// One tick's work: the mailbox, then the sensor's samples (or its recovery) through the
    /// pipeline to the observers. Loop thread (or its group's) only.
    @inline(__always)
    func step(_ tick: TickContext) throws {
        if workPending.load(ordering: .acquiring) { runPendingWork() }
        try recovery.tick(at: tick.wakeTime, events: { sensorEvent($0) }) { raw in handle(raw, tick) }
    }

    @inline(__always) @discardableResult
    private func handle(_ raw: Sample, _ tick: TickContext) -> PipelineOutput {
        let result = pipeline.process(raw)
        samples &+= 1
        if let event = result.shakeEvent, event.phase == .started { haptics?.play(shakeEffect) }
        // By index: a for-in iterator allocates in a debug build, and this runs per sample.
        for i in observing.indices { observing[i].sample(result, tick) }
        running?.sampled()
        return result
    }

    /// Loop thread: the motor off on a loss, the pipeline told of the gap on a return.
    private func sensorEvent(_ event: SensorEvent) {
        switch event {
        case .lost: haptics?.cancel()
        case .back: pipeline.resumeAfterGap()
        }
        notify(.sensor(event))
    }

    private func notify(_ event: LoopEvent) {
        for i in observing.indices { observing[i].event(event) }
    }
}

/// Work for the loop thread, from its mailbox.
final class LoopWork: @unchecked Sendable {
    let body: (TiltLoop) throws -> Void
    /// Adds an observer to the run under way (`TiltLoop.observe`).
    let addsObserver: Bool
    init(addsObserver: Bool = false, _ body: @escaping (TiltLoop) throws -> Void) {
        self.addsObserver = addsObserver
        self.body = body
    }
}

/// A started `TiltLoop`: stop it, wait for its end, read its figures.
public final class RunningLoop: @unchecked Sendable {
    /// The loop it runs: its pipeline and the loop-thread-only setters, for observers.
    public let loop: TiltLoop
    private let condition = NSCondition()
    // Under `condition`.
    private var ended = false
    private var firstSampleTaken = false
    private var note: String?
    private var error: Error?
    // Loop thread only: spares the lock after the first sample.
    private var sampledOnce = false

    init(loop: TiltLoop) { self.loop = loop }

    /// Ends the loop before its next tick, or at once while it sleeps on the interrupt pin:
    /// the one way to stop a run early. Callable from any thread (an observer's, a signal
    /// handler's), any number of times.
    public func stop() { loop.stop() }

    /// Runs `work` on the loop thread at the next tick boundary, before that tick's read: the
    /// place to change the pipeline (`setNeutral`, `setShakeSettings`, `setCalibration`) while
    /// the loop runs. Work posted between two ticks all runs, in the order posted; a `work` that
    /// throws is tried again at the following ticks until it succeeds or newer work arrives.
    /// Callable from any thread; an empty mailbox costs the loop one atomic load per tick.
    public func perform(_ work: @escaping @Sendable (TiltLoop) throws -> Void) {
        loop.post(LoopWork(work))
    }

    /// Adds an observer from the next tick boundary on (`TiltLoop.observe`).
    public func observe(_ observer: LoopObserver) { loop.observe(observer) }

    /// Blocks until the loop has ended: the thread policy's note (why real-time scheduling was
    /// refused, say), or the error that ended it (`SensorLostError`). Callable from any thread,
    /// any number of times.
    @discardableResult
    public func wait() throws -> String? {
        condition.lock()
        while !ended { condition.wait() }
        let (note, error) = (note, error)
        condition.unlock()
        if let error { throw error }
        return note
    }

    /// True once the loop has ended (stopped, finished, or the sensor was given up on).
    public var isFinished: Bool { condition.withLock { ended } }

    /// Blocks until the loop has taken its first sample, or has ended without one.
    public func waitForFirstSample() {
        condition.lock()
        while !firstSampleTaken && !ended { condition.wait() }
        condition.unlock()
    }

    /// The schedule's figures (ticks, missed, lateness), the samples, the bus's trouble and the
    /// sleeps so far; callable from any thread.
    package var totals: LoopTotals {
        LoopTotals(schedule: loop.scheduleStatistics, samples: loop.samples, bus: loop.busStatistics, wake: loop.wakeStatistics)
    }

    func sampled() {
        guard !sampledOnce else { return }
        sampledOnce = true
        condition.withLock { firstSampleTaken = true }
        condition.broadcast()
    }

    func finish(note: String?, error: Error?) {
        condition.withLock {
            self.note = note
            self.error = error
            ended = true
        }
        condition.broadcast()
    }
}

/// A running loop's figures.
package struct LoopTotals: Sendable {
    package var schedule: LoopStatistics
    package var samples: UInt64
    package var bus: BusStatistics
    package var wake: WakeStatistics
}

