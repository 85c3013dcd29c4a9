import Synchronization
import Tiltboard
import TiltboardCore
import TiltboardDrivers

/// What the loop publishes after every sample for the web clients: plain values only.
package struct LoopFrame: Sendable {
    package var output = PipelineOutput()
    /// The motor is playing an effect.
    package var haptic = false
    /// The loop's clock when it woke for this sample, nanoseconds (CLOCK_MONOTONIC on a real
    /// clock): a client on the same machine measures a frame's age from it.
    package var wakeTimeNs: UInt64 = 0
    package var samples: UInt64 = 0
    /// Ticks skipped so far because one overran.
    package var missedTicks: UInt64 = 0
    /// Shakes started so far.
    package var shakes: UInt64 = 0
    /// The largest linear acceleration the shake detector saw over the last 0.1 s of loop time,
    /// g: frames go out at the page's rate, slower than the loop, and a half-cycle's peak must
    /// not fall between two of them.
    package var linearPeakG = 0.0
    /// Loop time of `linearPeakG`.
    package var linearPeakT = -Double.infinity
    /// The neutral capture running now, if any.
    package var calibration = CalibrationProgress()

    package init() {}
}

/// A neutral capture's state as the loop sees it.
package struct CalibrationProgress: Sendable, Equatable {
    /// Counts captures started; 0 before the first.
    package var attempt: UInt64 = 0
    package var running = false
    /// 0…1 of the still duration.
    package var progress = 0.0
    /// How often movement restarted it, and the latest reason.
    package var restarts = 0
    package var lastFailure: StillnessFailure?
}

/// How a neutral capture over the web ended, handed from the loop to the server.
package enum CalibrationOutcome: Sendable {
    /// Applied on the loop already; the server saves it.
    case captured(NeutralCalibrationResult)
    /// Gave up (`CalibrationError.captureTimedOut`) or the sensor failed.
    case failed(any Error & Sendable)
}

/// The loop thread's side of `serve`: publishes each sample into a latest-wins slot, runs the
/// neutral capture the page asked for on the samples the loop takes anyway, and sets the neutral
/// pose. Nothing here blocks or allocates per tick; requests arrive through the loop's mailbox
/// (`TiltLoop.perform`), and the rare results (a finished capture, a lost sensor) go back under a
/// lock the loop takes only then.
package final class BoardFeed: @unchecked Sendable {
    package let slot = LatestSlot(LoopFrame())
    /// The capture's settings: the same defaults as `tiltboard calibrate` (2 s still within 30 s).
    package let captureSettings: NeutralCapture.Settings
    private let haptics: HapticEngine?
    private let session: BoardSession
    /// The loop this feed hears, whose mailbox takes the requests.
    private let loop: TiltLoop
    /// True from a capture's request until the server took its outcome.
    private let capturing = Atomic<Bool>(false)
    private let outcome = Mutex<CalibrationOutcome?>(nil)
    private let sensorEvents = Mutex<[SensorEvent]>([])

    // Loop thread only.
    private var frame = LoopFrame()
    private var stepper: NeutralCalibration.Stepper?

    package init(session: BoardSession, loop: TiltLoop, haptics: HapticEngine?,
                 captureSettings: NeutralCapture.Settings = NeutralCapture.Settings()) {
        self.session = session
        self.loop = loop
        self.haptics = haptics
        self.captureSettings = captureSettings
    }

    // MARK: loop thread

    /// For every sample, from the loop's output.
    package func tick(_ out: PipelineOutput, _ tick: TickContext, loop: TiltLoop) {
        if stepper != nil { feedCapture(out, loop: loop) }
        frame.output = out
        frame.wakeTimeNs = tick.wakeTime
        frame.haptic = haptics?.isActive ?? false
        frame.samples &+= 1
        frame.missedTicks &+= tick.missedTicks
        if let event = out.shakeEvent, event.phase == .started { frame.shakes &+= 1 }
        if out.linearG >= frame.linearPeakG || out.t - frame.linearPeakT >= 0.1 || out.t < frame.linearPeakT {
            frame.linearPeakG = out.linearG
            frame.linearPeakT = out.t
        }
        slot.publish(frame)
    }

    /// Starts a neutral capture on the following samples (`requestCapture` posts it).
    package func beginCapture() {
        stepper = NeutralCalibration.Stepper(settings: captureSettings)
        frame.calibration = CalibrationProgress(attempt: frame.calibration.attempt &+ 1, running: true)
    }

    private func feedCapture(_ out: PipelineOutput, loop: TiltLoop) {
        do {
            let step = try stepper!.feed(Sample(t: out.t, accel: out.accel, gyro: out.gyro, tempC: out.tempC))
            switch step.event {
            case let .progress(p): frame.calibration.progress = p
            case let .restarted(why):
                frame.calibration.restarts += 1
                frame.calibration.lastFailure = why
                frame.calibration.progress = 0
            default: break
            }
            guard let pose = step.pose else { return }
            let result = stepper!.result(pose: pose, chain: loop.pipeline.tracker, session: session)
            loop.setNeutral(pose)
            finishCapture(.captured(result))
        } catch {
            finishCapture(.failed(error))
        }
    }

    private func finishCapture(_ result: CalibrationOutcome) {
        stepper = nil
        frame.calibration.running = false
        outcome.withLock { $0 = result }
    }

    /// When the sensor is lost or back, from a loop observer (`LoopEvent.sensor`).
    package func sensorEvent(_ event: SensorEvent) {
        sensorEvents.withLock { $0.append(event) }
    }

    // MARK: any other thread

    /// Starts a neutral capture at the next sample; false while one is running.
    package func requestCapture() -> Bool {
        guard capturing.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        loop.perform { [self] _ in beginCapture() }
        return true
    }

    /// Sets the neutral pose to level at the next tick.
    package func requestLevel() {
        loop.perform { $0.setNeutral(.level) }
    }

    /// Makes the loop's shake detector use `settings` from its next tick on.
    package func requestShakeSettings(_ settings: ShakeDetectorSettings) {
        loop.perform { $0.setShakeSettings(settings) }
    }

    /// A capture is running or its outcome has not been taken yet.
    package var isCapturing: Bool { capturing.load(ordering: .acquiring) }

    /// The finished capture's outcome, once.
    package func takeOutcome() -> CalibrationOutcome? {
        let taken = outcome.withLock { o in
            defer { o = nil }
            return o
        }
        if taken != nil { capturing.store(false, ordering: .releasing) }
        return taken
    }

    /// Sensor losses and returns since the last call.
    package func takeSensorEvents() -> [SensorEvent] {
        sensorEvents.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }
}
