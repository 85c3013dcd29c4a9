import TiltboardCore

/// Everything one sample produced, for the output stream and the terminal view.
public struct PipelineOutput: Sendable, Equatable {
    /// Seconds since the loop started.
    public var t: Double
    /// Calibrated acceleration in the board frame, g.
    public var accel: Vector3
    /// Calibrated rotation rate in the board frame, °/s (MPU-6050).
    public var gyro: Vector3?
    /// The die temperature, °C (nil when the chip has none).
    public var tempC: Double?
    /// Unit gravity estimate rotated into the neutral pose's frame (what `tilt` is computed from).
    public var neutralGravity: Vector3
    /// Tilt relative to the neutral pose. Computed when read: the two arctangents are only paid
    /// for samples that are displayed, not on every sample the controller consumes.
    public var tilt: TiltAngles {
        get { TiltAngles(gravity: neutralGravity) }
        set { neutralGravity = newValue.gravity }
    }
    /// The marker: position, velocity and edges the controller made of the tilt.
    public var control: ControlOutput
    /// False while the tilt cannot be trusted (an accelerometer-only chip under linear
    /// acceleration): `controlTilt` then holds the last trusted tilt.
    public var tiltTrusted = true
    /// What the marker and the gamepad steer by, in the neutral pose's frame: `neutralGravity`,
    /// held at its last trusted value while `tiltTrusted` is false.
    public var controlGravity: Vector3?
    /// The tilt of `controlGravity`.
    public var controlTilt: TiltAngles { TiltAngles(gravity: controlGravity ?? neutralGravity) }
    /// A shake started or ended with this sample.
    public var shakeEvent: ShakeEvent?
    /// A shake is in progress.
    public var shaking: Bool
    /// Magnitude of the linear acceleration the shake detector saw in this sample, g.
    public var linearG = 0.0
    /// The threshold, in g, the detector compares it with (`ShakeDetectorSettings.thresholdG`).
    public var shakeThresholdG = ShakeDetectorSettings.standard.thresholdG

    /// An output from its parts, gravity already rotated into the neutral frame.
    @inlinable
    public init(t: Double, accel: Vector3, gyro: Vector3?, tempC: Double?, neutralGravity: Vector3,
                control: ControlOutput, shakeEvent: ShakeEvent?, shaking: Bool) {
        self.t = t; self.accel = accel; self.gyro = gyro; self.tempC = tempC; self.neutralGravity = neutralGravity
        self.control = control; self.shakeEvent = shakeEvent; self.shaking = shaking
    }

    /// An output from a tilt instead of a gravity vector (tests and replays).
    public init(t: Double = 0, accel: Vector3 = .unitZ, gyro: Vector3? = nil, tempC: Double? = nil,
                tilt: TiltAngles = TiltAngles(pitchDeg: 0, rollDeg: 0), control: ControlOutput = ControlOutput(x: 0, y: 0, vx: 0, vy: 0, headingDeg: 0, atEdgeX: false, atEdgeY: false),
                shakeEvent: ShakeEvent? = nil, shaking: Bool = false) {
        self.t = t; self.accel = accel; self.gyro = gyro; self.tempC = tempC; neutralGravity = tilt.gravity
        self.control = control; self.shakeEvent = shakeEvent; self.shaking = shaking
    }
}

/// The per-sample path: calibration and mount → tilt estimate → neutral rotation → controller,
/// with the shake detector on the board-frame sample. Value types only; nothing allocated per sample.
public struct TiltPipeline: Sendable {
    /// Calibration, mount, tilt estimate, neutral pose and controller.
    public var tracker: TiltTracker
    /// The shake detector, fed the board-frame sample.
    public var shake: ShakeDetector

    /// The pipeline of `tracker` and `shake`.
    public init(tracker: TiltTracker, shake: ShakeDetector = ShakeDetector()) {
        self.tracker = tracker
        self.shake = shake
    }

    /// Runs one raw sample (times in seconds since the loop started) through every stage.
    public mutating func process(_ raw: Sample) -> PipelineOutput {
        let s = tracker.boardSample(raw)
        let control = tracker.process(board: s)
        // With a gyro the estimator's gravity is better than the detector's own low-pass.
        let event = shake.update(t: s.t, accel: s.accel, gravity: s.gyro == nil ? nil : tracker.estimator.gravity)
        var out = PipelineOutput(t: s.t, accel: s.accel, gyro: s.gyro, tempC: s.tempC,
                                 neutralGravity: tracker.neutral.apply(tracker.estimator.gravity),
                                 control: control, shakeEvent: event, shaking: shake.isShaking)
        out.linearG = shake.lastLinearG
        out.shakeThresholdG = shake.settings.thresholdG
        out.tiltTrusted = tracker.estimator.isTrusted
        out.controlGravity = tracker.controlGravity
        return out
    }

    /// Continues after the loop slept: no step over the gap, filter state and marker kept.
    public mutating func resumeAfterGap() {
        tracker.resumeAfterGap()
        shake.resumeAfterGap()
    }

    /// Starts over from the current pose: filters and marker reset, calibration kept.
    public mutating func reset() {
        tracker.reset()
        shake.reset()
    }
}
