import Foundation
import Synchronization
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

/// The main job's loop: at a fixed rate, read the sensor (or drain its FIFO), run each sample
/// through the pipeline, play the shake effect when a shake starts, and hand every result to
/// `output` — on a dedicated thread, with nothing allocated per tick.
///
/// It takes its parts ready-made: a configured sensor (any `MotionSensor`, on any `I2CBus`), the
/// clock that paces it, and the pipeline. `BoardSession.makePipeline` builds the pipeline a board
/// file and its calibration profile describe.
public final class TiltLoop: @unchecked Sendable {
    /// Read (or drained) at every tick, on the loop thread while `run` runs.
    public let sensor: MotionSensor
    /// Paces the ticks; sample times count from the start of `run` on it.
    public let clock: MonotonicClock
    public let scheduler: FixedRateScheduler
    /// Plays the board's shake effect on the motor; nil on a board without a motor.
    public let haptics: HapticEngine?
    public let shakeEffect: HapticEffect
    /// Owned by the loop thread while `run` runs.
    public private(set) var pipeline: TiltPipeline
    /// Samples processed so far.
    public private(set) var samples: UInt64 = 0
    /// Set by `enableWakeOnMotion`.
    public private(set) var wakeOnMotion: WakeOnMotionSettings?
    private var wakeLine: GPIOInputLine?
    private var wakeEvents: (WakeEvent) -> Void = { _ in }
    private let wakeStats = Mutex(WakeStatistics())
    private let stopRequested = Atomic<Bool>(false)
    private let sensorLink: SensorRecovery
    /// Work handed to the loop thread by the watcher, run at the next tick boundary.
    private let pendingWork = Mutex<LoopWork?>(nil)
    private let workPending = Atomic<Bool>(false)
    private var watchPoll: (@Sendable () -> ((TiltLoop) throws -> Void)?)?
    private var watchIntervalSeconds = 1.0
    private let watchStop = Atomic<Bool>(false)
    /// How the loop rides out bus failures; set before `run`.
    public var recovery: BusRecoverySettings {
        get { sensorLink.settings }
        set { sensorLink.settings = newValue }
    }
    /// Time the process has spent stopped by job control (Ctrl-Z) so far, which an outage does not
    /// count towards `recovery.giveUpAfterSeconds`: none by default; a program that watches job
    /// control gives its count (the CLI: `SignalWatcher.shared`). Set before `run`.
    public var stoppedNanoseconds: () -> UInt64 {
        get { sensorLink.stoppedNanoseconds }
        set { sensorLink.stoppedNanoseconds = newValue }
    }
    /// Called on the loop thread when the sensor is lost (the motor is then off) and when it is back.
    public var sensorEvents: (SensorEvent) -> Void = { _ in }
    /// Called on the loop thread to get a lost sensor back: true when the chip had reset and was
    /// configured again. By default the chip's ID and configuration are checked and a chip that
    /// lost its configuration is configured again; `BoardSession.restoreSensor` also re-programs
    /// the offsets its profile moved into the chip. Set before `run`.
    public var restoreSensor: () throws -> Bool {
        get { sensorLink.restore }
        set { sensorLink.restore = newValue }
    }

    /// - Parameters:
    ///   - sensor: an identified and configured sensor. With its FIFO on, each tick drains every
    ///     waiting sample.
    ///   - clock: paces the ticks and times the samples; a `ManualClock` or `VirtualClock` runs
    ///     the loop without waiting.
    ///   - pipeline: calibration, tilt estimation, controller and shake detector.
    ///   - rateHz: ticks per second.
    ///   - haptics: the motor's engine, or nil to stay silent.
    ///   - shakeEffect: what the motor plays when a shake starts.
    public init(sensor: MotionSensor, clock: MonotonicClock, pipeline: TiltPipeline, rateHz: Double,
                haptics: HapticEngine? = nil, shakeEffect: HapticEffect = .pulse(ms: 150)) {
        self.sensor = sensor
        self.clock = clock
        scheduler = FixedRateScheduler(rateHz: rateHz, clock: clock)
        self.haptics = haptics
        self.shakeEffect = shakeEffect
        self.pipeline = pipeline
        sensorLink = SensorRecovery(sensor: sensor, clock: clock)
    }

    /// Runs until `shouldStop` returns true, `duration` seconds have passed, `stop()` is called or
    /// the sensor gives up (`recovery`: a failed read is retried, a lost sensor restored, and only
    /// `giveUpAfterSeconds` without a sample throw `SensorLostError`). `output` runs on the loop
    /// thread for every sample, in order; while the sensor is lost there are none.
    /// `realtime`: ask for SCHED_FIFO and locked memory; the returned note says why not, if not.
    /// After `enableWakeOnMotion`, the loop sleeps on the interrupt pin through still spells (no
    /// ticks, no `output`); sample times keep counting from the start, across the gaps.
    public func run(duration: Double? = nil, realtime: Bool = false,
                    shouldStop: @escaping @Sendable () -> Bool = { false },
                    output: @escaping (PipelineOutput, TickContext) -> Void) throws -> String? {
        let box = ThreadResult()
        // The caller blocks until the loop thread ends, so `output` is never used concurrently.
        nonisolated(unsafe) let output = output
        let thread = Thread { [self] in
            Realtime.tightenTimerSlack()
            if realtime { box.realtimeNote = Realtime.enable() }
            do {
                try self.clock.takingPart {
                    self.startWatcher()
                    defer { self.watchStop.store(true, ordering: .releasing) }
                    try self.loop(duration: duration, shouldStop: shouldStop, output: output)
                }
            } catch { box.error = error }
            box.done.signal()
        }
        thread.name = "tiltboard-loop"
        thread.stackSize = 1 << 20
        thread.start()
        box.done.wait()
        if let error = box.error { throw error }
        return box.realtimeNote
    }

    /// Ends `run` before its next tick (or its next look at the pin while asleep); callable from any thread.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
        scheduler.stop()
    }

    /// Makes `run` sleep on the sensor's interrupt pin (`line`, the GPIO input wired to it)
    /// whenever the board has been still for `settings.idleSeconds`, with the chip's motion
    /// detector armed, and resume at full rate on motion. `events` is called on the loop thread at
    /// each sleep and wake.
    public func enableWakeOnMotion(line: GPIOInputLine, _ settings: WakeOnMotionSettings = WakeOnMotionSettings(),
                                   events: @escaping (WakeEvent) -> Void = { _ in }) {
        wakeOnMotion = settings
        wakeLine = line
        wakeEvents = events
    }

    /// Sleeps, wakeups and time asleep so far; callable from any thread.
    public var wakeStatistics: WakeStatistics { wakeStats.withLock { $0 } }

    /// Bus errors, outages and reconfigurations so far; callable from any thread.
    public var busStatistics: BusStatistics { sensorLink.statistics }

    /// While `run` runs, calls `poll` every `intervalSeconds` on a thread of its own (on the loop's
    /// clock), never on the loop thread; what it returns runs on the loop thread at the next tick
    /// boundary (before that tick's read), and again at the following ones while it throws. The
    /// tick itself only loads an atomic flag. Set before `run`. `BoardSession.watchProfile` uses it.
    public func watch(everySeconds intervalSeconds: Double = 1,
                      _ poll: @escaping @Sendable () -> ((TiltLoop) throws -> Void)?) {
        watchIntervalSeconds = Swift.max(intervalSeconds, 0.01)
        watchPoll = poll
    }

    private func startWatcher() {
        guard let poll = watchPoll else { return }
        watchStop.store(false, ordering: .releasing)
        let clock = clock
        let interval = UInt64(watchIntervalSeconds * 1e9)
        let first = clock.nowNanoseconds() &+ interval
        let thread = Thread { [self] in
            clock.takingPart {
                var next = first
                while !watchStop.load(ordering: .acquiring) {
                    clock.sleep(untilNanoseconds: next)
                    next &+= interval
                    if watchStop.load(ordering: .acquiring) { break }
                    guard let work = poll() else { continue }
                    pendingWork.withLock { $0 = LoopWork(body: work) }
                    workPending.store(true, ordering: .releasing)
                }
            }
        }
        thread.name = "tiltboard-watch"
        thread.start()
    }

    /// Loop thread: runs the watcher's work, keeping it for the next tick when it fails (a bus
    /// error while programming offsets) and nothing newer arrived.
    private func runPendingWork() {
        workPending.store(false, ordering: .releasing)
        guard let work = pendingWork.withLock({ w -> LoopWork? in
            defer { w = nil }
            return w
        }) else { return }
        do {
            try work.body(self)
        } catch {
            pendingWork.withLock { if $0 == nil { $0 = work } }
            workPending.store(true, ordering: .releasing)
        }
    }

    /// Replaces the software calibration and the neutral pose and re-centres: a profile changed
    /// on disk. Loop thread only.
    public func setCalibration(_ calibration: SensorCalibration, biasKnown: Bool, calibratedTempC: Double?,
                               neutral: NeutralPose) {
        pipeline.chain.calibration = calibration
        pipeline.chain.holdStill = HoldStill(biasKnown: biasKnown, calibratedTempC: calibratedTempC,
                                             settings: pipeline.chain.holdStill.settings)
        pipeline.chain.neutral = neutral
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
        pipeline.chain.neutral = pose
        pipeline.reset()
    }

    private func loop(duration: Double?, shouldStop: () -> Bool,
                      output: (PipelineOutput, TickContext) -> Void) throws {
        let clock = clock
        let start = clock.nowNanoseconds()
        let end = duration.map { start &+ UInt64($0 * 1e9) }
        let ended = { end.map { clock.nowNanoseconds() >= $0 } ?? false }
        func sensorEvent(_ event: SensorEvent) {
            switch event {
            case .lost: haptics?.cancel()
            case .back: pipeline.resumeAfterGap()
            }
            sensorEvents(event)
        }
        guard let wake = wakeOnMotion, let line = wakeLine else {
            try scheduler.run(shouldStop: { shouldStop() || ended() }) { tick in
                if workPending.load(ordering: .acquiring) { runPendingWork() }
                let t = Double(tick.wakeTime &- start) / 1e9
                try sensorLink.tick(at: t, now: tick.wakeTime, events: sensorEvent) { raw in handle(raw, tick, output) }
            }
            return
        }
        // Sampling runs in stretches: each ends when the board has been still long enough, the
        // loop sleeps on the pin, and a new stretch (new tick grid) starts on motion.
        var idle = IdleTracker(settings: wake)
        var goIdle = false
        while true {
            try scheduler.run(shouldStop: { goIdle || shouldStop() || ended() }) { tick in
                if workPending.load(ordering: .acquiring) { runPendingWork() }
                let t = Double(tick.wakeTime &- start) / 1e9
                try sensorLink.tick(at: t, now: tick.wakeTime, events: sensorEvent) { raw in
                    let out = handle(raw, tick, output)
                    if idle.update(t: out.t, accel: out.accel, shaking: out.shaking) { goIdle = true }
                }
            }
            guard goIdle else { return }
            goIdle = false
            guard try sleepUntilMotion(line: line, settings: wake, start: start, end: end, shouldStop: shouldStop) else { return }
            pipeline.resumeAfterGap()
            idle.restart()
        }
    }

    /// Arms the chip, clears what is already latched and waits on the pin until the chip reports
    /// motion (true), or a stop or the end of the run (false). A bus failure also returns true:
    /// the sampling path rides it out.
    private func sleepUntilMotion(line: GPIOInputLine, settings: WakeOnMotionSettings, start: UInt64,
                                  end: UInt64?, shouldStop: () -> Bool) throws -> Bool {
        do {
            try sensor.armMotionInterrupt(thresholdG: settings.thresholdG)
            // Edges queued while awake are stale, and so is a flag latched then (the board has been
            // still since): drop both, in this order, so that motion from now on raises a fresh edge
            // — one arriving between the two stays queued and leads to a look at the flag.
            var stale = 0
            while stale < 64, try line.waitForEdge(timeoutNanoseconds: 0) { stale += 1 }
            _ = try sensor.acknowledgeMotionInterrupt()
        } catch is I2CError {
            return true
        }
        let asleepAt = clock.nowNanoseconds()
        wakeStats.withLock { $0.sleeps += 1 }
        wakeEvents(.sleeping(t: Double(asleepAt &- start) / 1e9))
        var woke = false
        // At least 10 ms per wait: a zero timeout would spin instead of sleeping.
        let timeout = UInt64(Swift.max(settings.waitTimeoutSeconds, 0.01) * 1e9)
        while !woke {
            let now = clock.nowNanoseconds()
            if stopRequested.load(ordering: .acquiring) || shouldStop() { break }
            if let end, now >= end { break }
            let wait = end.map { Swift.min(timeout, $0 - now) } ?? timeout
            if try line.waitForEdge(timeoutNanoseconds: Int64(wait)) {
                // Another source could share the line: only the chip's own flag counts.
                woke = (try? sensor.acknowledgeMotionInterrupt()) ?? true
            }
        }
        let now = clock.nowNanoseconds()
        let asleep = Double(now &- asleepAt) / 1e9
        wakeStats.withLock {
            $0.idleSeconds += asleep
            if woke { $0.wakeups += 1 }
        }
        if woke {
            wakeEvents(.woke(t: Double(now &- start) / 1e9, idleSeconds: asleep))
            do {
                try sensor.disarmMotionInterrupt()
            } catch is I2CError {
                // The sampling path rides it out, and configures a chip found changed again.
            }
        }
        return woke
    }

    @inline(__always) @discardableResult
    private func handle(_ raw: Sample, _ tick: TickContext, _ output: (PipelineOutput, TickContext) -> Void) -> PipelineOutput {
        let result = pipeline.process(raw)
        samples &+= 1
        if let event = result.shakeEvent, event.phase == .started { haptics?.play(shakeEffect) }
        output(result, tick)
        return result
    }
}

/// Work for the loop thread from the watcher.
private final class LoopWork: @unchecked Sendable {
    let body: (TiltLoop) throws -> Void
    init(body: @escaping (TiltLoop) throws -> Void) { self.body = body }
}

/// Carries the loop thread's outcome back to the caller.
private final class ThreadResult: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var error: Error?
    var realtimeNote: String?
}

extension BoardDescription.ShakeSection {
    /// The detector settings: the board's values over the detector's defaults.
    public var detectorSettings: ShakeDetectorSettings {
        var s = ShakeDetectorSettings.standard
        if let v = thresholdG { s.thresholdG = v }
        if let v = minFraction { s.minFraction = v }
        if let v = minReversals { s.minReversals = v }
        if let v = cooldownMs { s.cooldownMs = v }
        return s
    }
}
