import TiltboardCore

/// What a neutral-pose capture produced.
public struct NeutralCalibrationResult: Sendable, Equatable {
    /// The pose to store; `clamped` when it was steeper than allowed.
    public var pose: NeutralPose
    /// Samples, noise and temperature of the still stretch.
    public var capture: CaptureSummary
    /// How often movement restarted the capture.
    public var restarts: Int
}

/// Captures the player's neutral pose on an open board: still samples in the board frame,
/// corrected by the session's sensor calibration but not by any earlier neutral pose.
public struct NeutralCalibration: Sendable {
    /// Duration, timeout, stillness limits and the steepest neutral accepted.
    public var settings: NeutralCapture.Settings

    /// A capture with `settings` (defaults: 2 s still within 30 s, at most 30°).
    public init(settings: NeutralCapture.Settings = NeutralCapture.Settings()) { self.settings = settings }

    /// Samples until the board has been still for the duration; throws
    /// `CalibrationError.captureTimedOut` after the timeout and `CalibrationStopped` when stopped.
    /// Nothing is saved: pass the result to `session.saveNeutral(_:capture:)`.
    public func run(on session: BoardSession, shouldStop: () -> Bool = { false },
                    events: (CalibrationEvent) -> Void = { _ in }) throws -> NeutralCalibrationResult {
        let chain = session.makeTiltTracker()
        var stepper = Stepper(settings: settings)
        var pose: NeutralPose?
        try session.sampleRaw(shouldStop: shouldStop, events: events) { raw in
            let step = try stepper.feed(chain.boardSample(raw))
            events(step.event)
            pose = step.pose
            return pose != nil
        }
        guard let pose else { throw CalibrationStopped() }
        return stepper.result(pose: pose, chain: chain, session: session)
    }

    /// One capture fed sample by sample, by `run` or by a loop that is already sampling (the
    /// samples must be corrected by the session's sensor calibration but not by any neutral pose,
    /// as `PipelineOutput.accel` is). Allocates nothing.
    package struct Stepper: Sendable {
        package private(set) var capture: NeutralCapture

        package init(settings: NeutralCapture.Settings) { capture = NeutralCapture(settings: settings) }

        /// Adds one board-frame sample: what to report, and the pose once the capture is done.
        /// Throws `CalibrationError.captureTimedOut` after the timeout.
        package mutating func feed(_ sample: Sample) throws -> (event: CalibrationEvent, pose: NeutralPose?) {
            switch capture.feed(sample) {
            case let .capturing(progress): return (.progress(progress), nil)
            case let .restarted(why): return (.restarted(why), nil)
            case let .done(pose): return (.progress(1), pose)
            case let .timedOut(last):
                throw CalibrationError.captureTimedOut(after: .rounded(seconds: capture.settings.still.timeout), lastFailure: last)
            }
        }

        /// The finished capture's result; `chain` is the one the samples went through.
        package func result(pose: NeutralPose, chain: TiltTracker, session: BoardSession) -> NeutralCalibrationResult {
            let stats = capture.capture.accel
            // The still gyro's mean is what the current correction left of the bias, in the board
            // frame; the profile keeps the whole bias in the sensor frame.
            let gyroBias = capture.capture.gyro.map { residual in
                (chain.calibration.gyroBiasDps ?? .zero) + session.chipOffsets.gyroDps + chain.mount.transposed * residual.mean
            }
            return NeutralCalibrationResult(
                pose: pose,
                capture: CaptureSummary(sampleCount: stats.count, noiseMg: stats.stdDev * 1000,
                                        temperatureC: capture.capture.meanTempC, gyroBiasDps: gyroBias,
                                        neutralSource: session.neutralSource(boardMeanG: stats.mean, chain: chain,
                                                                             maxTiltDeg: capture.settings.maxTiltDeg)),
                restarts: capture.restarts)
        }
    }
}
