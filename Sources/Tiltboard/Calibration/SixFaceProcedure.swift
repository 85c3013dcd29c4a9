import TiltboardCore

/// What the six-face procedure produced.
public struct SensorCalibrationResult: Sendable, Equatable {
    /// The fitted offsets, scales, gyro bias and residuals.
    public var fit: SixFaceResult
    /// All face captures together: samples, mean noise and mean temperature.
    public var capture: CaptureSummary
}

/// The guided six-orientation sensor calibration on an open board.
///
/// Works on raw sensor-frame samples (no mount, no stored calibration): open the session without
/// its profile so the chip's offset registers hold their reset values. Each face is captured in
/// two still stretches: `settle` (which absorbs the slow end of the turn) and `duration` (the
/// measurement). A face is taken in any order; after each capture the board must move before the
/// next one counts, so holding a face longer does not report it as repeated.
public struct SixFaceProcedure: Sendable {
    /// Stillness limits for both stretches.
    package var criteria: StillnessCriteria
    /// Seconds of stillness discarded before each measurement.
    package var settle: Double
    /// Seconds of stillness measured per face.
    package var duration: Double
    /// Longest wait for the next face, in seconds.
    package var timeout: Double
    /// Acceptance limits for the fit (residual, scale and offset ranges).
    package var limits: SixFaceCalibrator.Limits

    /// The procedure waiting at most `timeout` for each face, with the other settings at their
    /// defaults (0.5 s settle, 1.5 s measured per face).
    public init(timeout: Duration = .seconds(30)) {
        self.init(timeout: Nanoseconds.seconds(timeout))
    }

    /// Defaults: 0.5 s settle, 1.5 s measured per face, 30 s per face.
    package init(criteria: StillnessCriteria = StillnessCriteria(), settle: Double = 0.5, duration: Double = 1.5,
                timeout: Double = 30, limits: SixFaceCalibrator.Limits = SixFaceCalibrator.Limits()) {
        self.criteria = criteria; self.settle = settle; self.duration = duration
        self.timeout = timeout; self.limits = limits
    }

    private enum Stage { case settling, measuring }

    /// Runs until all six faces are captured and fits them. Throws `FaceTimeout`,
    /// `CalibrationStopped`, or a `CalibrationError` when the fit is not acceptable.
    public func run(on session: BoardSession, shouldStop: () -> Bool = { false },
                    events: (CalibrationEvent) -> Void = { _ in }) throws -> SensorCalibrationResult {
        var calibrator = SixFaceCalibrator(criteria: criteria, limits: limits)
        let settleSettings = StillCapture.Settings(duration: settle, timeout: .infinity, criteria: criteria)
        let measureSettings = StillCapture.Settings(duration: duration, timeout: .infinity, criteria: criteria)
        var stage = Stage.settling
        var capture = StillCapture(settings: settleSettings)
        var mustMove = false
        var waitStart: Double?
        var lastFailure: StillnessFailure?
        var samples = 0
        var noiseSum = Vector3.zero
        var tempSum = 0.0, tempCount = 0

        try session.sampleRaw(shouldStop: shouldStop, events: events) { raw in
            if waitStart == nil { waitStart = raw.t }
            if let start = waitStart, raw.t - start > timeout {
                throw FaceTimeout(seconds: timeout, remaining: calibrator.missingFaces, lastFailure: lastFailure)
            }
            switch capture.feed(raw) {
            case let .capturing(progress):
                if !mustMove {
                    events(.progress(stage == .settling ? 0 : progress))
                }
            case let .restarted(why):
                if !mustMove { events(.restarted(why)); lastFailure = why }
                mustMove = false
                stage = .settling
                capture = StillCapture(settings: settleSettings)
                _ = capture.feed(raw)
            case .timedOut:
                break  // no timeout is set on the stretches themselves
            case .done:
                if mustMove {
                    capture = StillCapture(settings: settleSettings)
                } else if stage == .settling {
                    stage = .measuring
                    capture = StillCapture(settings: measureSettings)
                } else {
                    events(.progress(1))
                    do {
                        let face = try calibrator.add(stats: capture.accel, gyro: capture.gyro)
                        samples += capture.accel.count
                        noiseSum += capture.accel.stdDev * 1000
                        if let t = capture.meanTempC { tempSum += t; tempCount += 1 }
                        events(.faceCaptured(face, remaining: calibrator.missingFaces))
                        waitStart = raw.t
                    } catch let error as CalibrationError {
                        events(.faceRejected(error))
                    }
                    mustMove = true
                    stage = .settling
                    capture = StillCapture(settings: settleSettings)
                }
            }
            return calibrator.isComplete
        }
        guard calibrator.isComplete else { throw CalibrationStopped() }
        let fit = try calibrator.fit()
        let faces = Double(BoardFace.allCases.count)
        return SensorCalibrationResult(
            fit: fit,
            capture: CaptureSummary(sampleCount: samples, noiseMg: noiseSum / faces,
                                    temperatureC: tempCount > 0 ? tempSum / Double(tempCount) : nil))
    }
}
