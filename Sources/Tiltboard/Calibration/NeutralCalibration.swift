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
        let chain = session.makeTiltChain()
        var capture = NeutralCapture(settings: settings)
        var pose: NeutralPose?
        try session.sampleRaw(shouldStop: shouldStop) { raw in
            switch capture.feed(chain.boardSample(raw)) {
            case let .capturing(progress):
                events(.progress(progress))
                return false
            case let .restarted(why):
                events(.restarted(why))
                return false
            case let .done(p):
                events(.progress(1))
                pose = p
                return true
            case let .timedOut(last):
                throw CalibrationError.captureTimedOut(seconds: settings.still.timeout, lastFailure: last)
            }
        }
        guard let pose else { throw CalibrationStopped() }
        let stats = capture.capture.accel
        // The still gyro's mean is what the current correction left of the bias, in the board
        // frame; the profile keeps the whole bias in the sensor frame.
        let gyroBias = capture.capture.gyro.map { residual in
            (chain.calibration.gyroBiasDps ?? .zero) + session.chipOffsets.gyroDps + chain.mount.transposed * residual.mean
        }
        return NeutralCalibrationResult(
            pose: pose,
            capture: CaptureSummary(sampleCount: stats.count, noiseMg: stats.stdDev * 1000,
                                    temperatureC: capture.capture.meanTempC, gyroBiasDps: gyroBias),
            restarts: capture.restarts)
    }
}
