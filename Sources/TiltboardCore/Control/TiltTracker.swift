/// The per-sample path from a raw sensor sample to marker motion, in the one correct order:
/// sensor calibration (sensor frame) → mount (board frame) → tilt estimate → neutral rotation →
/// controller. Value types only; nothing is allocated per sample.
public struct TiltTracker: Sendable {
    /// Offsets, scales and gyro bias, in the sensor's own frame.
    public var calibration: SensorCalibration
    /// Maps sensor axes onto board axes: board = mount × sensor.
    public var mount: Matrix3
    /// Gyro bias tracking and thermal-drift hold while still, ahead of the estimator.
    package var holdStill: HoldStill
    /// Gravity direction filter.
    public var estimator: TiltEstimator
    /// The player's neutral pose. A new one is also the hold-still stage's reference, at an
    /// unknown temperature.
    public var neutral: NeutralPose {
        didSet {
            holdStill.neutralMeanG = neutral == .level ? nil : neutral.meanRawG
            holdStill.neutralTempC = nil
        }
    }
    /// Marker motion.
    public var controller: TiltController
    /// Longest step handed to the controller, in seconds; after a stall the marker resumes
    /// instead of lurching by the whole gap.
    package var maxStepSeconds: Double = 0.1
    /// Longest step handed to the controller (100 ms unless changed); after a stall the marker
    /// resumes instead of lurching by the whole gap.
    public var maxStep: Duration {
        get { .rounded(seconds: maxStepSeconds) }
        set { maxStepSeconds = newValue.inSeconds }
    }
    /// Time of the previous sample, nil before the first.
    package private(set) var lastTime: Double?
    /// The last gravity estimate the estimator trusted (board frame): what the controller steers
    /// by while the estimate cannot be trusted, so the marker holds instead of flying to an edge.
    public private(set) var trustedGravity: Vector3?

    /// The gravity the controller steers by, in the neutral pose's frame.
    @inlinable public var controlGravity: Vector3 { neutral.apply(trustedGravity ?? estimator.gravity) }

    /// A chain from its parts; the defaults estimate from the accelerometer alone.
    public init(calibration: SensorCalibration = .identity, mount: Matrix3 = .identity,
                estimator: TiltEstimator = TiltEstimator(mode: .accelerometerOnly), neutral: NeutralPose = .level,
                controller: TiltController = TiltController()) {
        self.init(calibration: calibration, mount: mount, estimator: estimator, neutral: neutral,
                  controller: controller, holdStill: nil)
    }

    /// A chain from its parts with a hold-still stage of its own (nil: the default one).
    package init(calibration: SensorCalibration = .identity, mount: Matrix3 = .identity,
                 estimator: TiltEstimator = TiltEstimator(mode: .accelerometerOnly), neutral: NeutralPose = .level,
                 controller: TiltController = TiltController(), holdStill: HoldStill?) {
        self.calibration = calibration; self.mount = mount; self.estimator = estimator
        var hold = holdStill ?? HoldStill(biasKnown: calibration.gyroBiasDps != nil)
        // The data sheet's drift is per sensor axis; the stage sees board axes.
        let d = hold.settings.driftGPerC
        func bound(_ row: Vector3) -> Double { Swift.abs(row.x) * d.x + Swift.abs(row.y) * d.y + Swift.abs(row.z) * d.z }
        hold.settings.driftGPerC = Vector3(bound(mount.r0), bound(mount.r1), bound(mount.r2))
        hold.neutralMeanG = neutral == .level ? nil : neutral.meanRawG
        self.holdStill = hold
        self.neutral = neutral; self.controller = controller
    }

    /// The sample calibrated and turned into the board frame (what the shake detector wants).
    @inlinable public func boardSample(_ raw: Sample) -> Sample {
        var s = calibration.apply(raw)
        s.accel = mount * s.accel
        if let g = s.gyro { s.gyro = mount * g }
        return s
    }

    /// Runs one raw sample through the chain; the step is the time since the previous sample.
    public mutating func process(_ raw: Sample) -> ControlOutput {
        process(board: boardSample(raw))
    }

    /// Runs one sample already in the board frame (from `boardSample`) through the rest.
    public mutating func process(board s: Sample) -> ControlOutput {
        var dt = 0.0
        if let last = lastTime { dt = Swift.min(Swift.max(0, s.t - last), maxStepSeconds) }
        lastTime = s.t
        let c = holdStill.correct(s, dt: dt)
        // While the hold-still stage holds, it measures the bias itself: one estimate at a time.
        if holdStill.isHolding, holdStill.biasKnown { estimator.clearResidualBias() }
        estimator.biasKnown = holdStill.biasKnown
        let g = estimator.update(accel: c.accel, gyroDps: c.gyro, dt: dt)
        if estimator.isTrusted { trustedGravity = g }
        return controller.update(gravity: controlGravity, dt: dt)
    }

    /// Continues after a pause in sampling (the loop slept): the next sample is a first step
    /// (dt 0), so the filters and the marker neither jump nor integrate over the gap.
    public mutating func resumeAfterGap() {
        lastTime = nil
        holdStill.resumeAfterGap()
    }

    /// Forgets the filter state and re-centres the marker; calibration and neutral stay.
    public mutating func reset() {
        estimator.reset()
        trustedGravity = nil
        holdStill.resumeAfterGap()
        controller.reset()
        lastTime = nil
    }
}
