import Foundation
import TiltboardCore
import TiltboardDrivers

/// The main job's loop: at a fixed rate, read the sensor (or drain its FIFO), run each sample
/// through the pipeline, play the shake effect when a shake starts, and hand every result to
/// `output` — on a dedicated thread, with nothing allocated per tick.
public final class TiltLoop: @unchecked Sendable {
    public let session: BoardSession
    public let scheduler: FixedRateScheduler
    /// Plays the board's shake effect on the motor; nil on a board without a motor.
    public let haptics: HapticEngine?
    public let shakeEffect: HapticEffect
    /// Owned by the loop thread while `run` runs.
    public private(set) var pipeline: TiltPipeline
    /// Samples processed so far.
    public private(set) var samples: UInt64 = 0

    /// - Parameters:
    ///   - rateHz: ticks per second. With the board's FIFO on, each tick drains every waiting sample.
    ///   - haptics: the motor's engine, or nil to stay silent.
    public init(session: BoardSession, rateHz: Double, haptics: HapticEngine?,
                controller: TiltControllerSettings = TiltControllerSettings()) throws {
        self.session = session
        scheduler = FixedRateScheduler(rateHz: rateHz, clock: session.clock)
        self.haptics = haptics
        shakeEffect = try HapticEffect.parse(name: session.board.motor?.shakeEffect ?? "pulse:150")
        pipeline = TiltPipeline(chain: session.makeTiltChain(controller: controller),
                                shake: ShakeDetector(settings: session.board.shake.detectorSettings))
    }

    /// Runs until `shouldStop` returns true, `duration` seconds have passed, `stop()` is called or
    /// the sensor fails (rethrown). `output` runs on the loop thread for every sample, in order.
    /// `realtime`: ask for SCHED_FIFO and locked memory; the returned note says why not, if not.
    public func run(duration: Double? = nil, realtime: Bool = false,
                    shouldStop: @escaping @Sendable () -> Bool = { false },
                    output: @escaping (PipelineOutput, TickContext) -> Void) throws -> String? {
        let box = ThreadResult()
        // The caller blocks until the loop thread ends, so `output` is never used concurrently.
        nonisolated(unsafe) let output = output
        let thread = Thread { [self] in
            if realtime { box.realtimeNote = Realtime.enable() }
            do { try self.loop(duration: duration, shouldStop: shouldStop, output: output) } catch { box.error = error }
            box.done.signal()
        }
        thread.name = "tiltboard-loop"
        thread.stackSize = 1 << 20
        thread.start()
        box.done.wait()
        if let error = box.error { throw error }
        return box.realtimeNote
    }

    /// Ends `run` before its next tick; callable from any thread.
    public func stop() { scheduler.stop() }

    /// Replaces the neutral pose and re-centres (the monitor's `c`/`z` keys); loop thread only,
    /// i.e. from inside `output`.
    public func setNeutral(_ pose: NeutralPose) {
        pipeline.chain.neutral = pose
        pipeline.reset()
    }

    private func loop(duration: Double?, shouldStop: () -> Bool,
                      output: (PipelineOutput, TickContext) -> Void) throws {
        let clock = session.clock
        let start = clock.nowNanoseconds()
        let end = duration.map { start &+ UInt64($0 * 1e9) }
        let sensor = session.sensor
        let fifo = sensor.configuration.useFIFO
        try scheduler.run(shouldStop: { shouldStop() || (end.map { clock.nowNanoseconds() >= $0 } ?? false) }) { tick in
            let t = Double(tick.wakeTime &- start) / 1e9
            if fifo {
                try sensor.drainFIFO(at: t) { raw in handle(raw, tick, output) }
            } else {
                handle(try sensor.read(at: t), tick, output)
            }
        }
    }

    @inline(__always)
    private func handle(_ raw: Sample, _ tick: TickContext, _ output: (PipelineOutput, TickContext) -> Void) {
        let result = pipeline.process(raw)
        samples &+= 1
        if let event = result.shakeEvent, event.phase == .started { haptics?.play(shakeEffect) }
        output(result, tick)
    }
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
        if let v = minDurationMs { s.minDurationMs = v }
        if let v = minFraction { s.minFraction = v }
        if let v = minReversals { s.minReversals = v }
        if let v = cooldownMs { s.cooldownMs = v }
        return s
    }
}
