/// The rotation that makes the player's comfortable holding angle read as level.
///
/// Subtracting a neutral reading per axis treats a rotation as an offset: tilting further one way
/// then responds differently from tilting back. Storing the rotation from the measured neutral
/// gravity direction onto +Z keeps the response symmetric about neutral at any angle.
public struct NeutralPose: Sendable, Equatable, Codable {
    /// Rotates board-frame gravity so that the neutral pose reads (0, 0, 1).
    public var rotation: Quaternion
    /// The mean gravity reaction measured at neutral, in g (after sensor calibration).
    public var meanRawG: Vector3
    /// Angle between the neutral pose and level, in degrees.
    public var tiltDeg: Double
    /// True when the neutral pose was steeper than allowed and only part of it is compensated.
    public var clamped: Bool

    /// Creates a pose from its parts.
    public init(rotation: Quaternion, meanRawG: Vector3, tiltDeg: Double, clamped: Bool) {
        self.rotation = rotation; self.meanRawG = meanRawG; self.tiltDeg = tiltDeg; self.clamped = clamped
    }

    /// Level is neutral: no rotation.
    public static let level = NeutralPose(rotation: .identity, meanRawG: .unitZ, tiltDeg: 0, clamped: false)

    /// The pose whose rotation takes `meanGravity`'s direction onto +Z along the shortest arc.
    ///
    /// Beyond `maxTiltDeg` the rotation stops at `maxTiltDeg` about the same axis and `clamped`
    /// is set, so a board captured upside down cannot silently invert the controls.
    public static func capture(meanGravity: Vector3, maxTiltDeg: Double = 30) -> NeutralPose {
        let n = meanGravity.normalized
        let axis = n.cross(.unitZ)
        let tilt = degrees(Foundation_atan2(axis.length, n.dot(.unitZ)))
        guard tilt > 1e-9, n != .zero else {
            return NeutralPose(rotation: .identity, meanRawG: meanGravity, tiltDeg: 0, clamped: false)
        }
        if tilt <= maxTiltDeg {
            return NeutralPose(rotation: Quaternion(from: n, to: .unitZ), meanRawG: meanGravity,
                               tiltDeg: tilt, clamped: false)
        }
        // Upside down the arc axis is undefined; any horizontal axis is as good as another.
        let rotationAxis = axis.lengthSquared > 1e-18 ? axis : Vector3(1, 0, 0)
        return NeutralPose(rotation: Quaternion(axis: rotationAxis, angle: radians(Swift.max(0, maxTiltDeg))),
                           meanRawG: meanGravity, tiltDeg: tilt, clamped: true)
    }

    /// Gravity as seen from the neutral pose (level at neutral).
    @inlinable public func apply(_ gravity: Vector3) -> Vector3 { rotation.rotate(gravity) }
}

/// Drives a neutral-pose capture from samples: progress, restarts on movement, timeout.
///
/// Feed calibrated samples in time order; it reads no clock, so the caller (CLI or test) decides
/// what time is. A capture restarts whenever the samples since its start stop being still.
public struct NeutralCapture: Sendable {
    /// Durations in seconds, stillness limits and the steepest neutral accepted.
    public struct Settings: Sendable, Equatable {
        /// How long the board must be still.
        public var duration: Double
        /// Give up this long after the first sample.
        public var timeout: Double
        /// Limits for stillness.
        public var criteria: StillnessCriteria
        /// Passed to `NeutralPose.capture`.
        public var maxTiltDeg: Double

        /// Defaults: 2 s still within 30 s, default stillness, 30° maximum neutral tilt.
        public init(duration: Double = 2, timeout: Double = 30, criteria: StillnessCriteria = StillnessCriteria(),
                    maxTiltDeg: Double = 30) {
            self.duration = duration; self.timeout = timeout; self.criteria = criteria; self.maxTiltDeg = maxTiltDeg
        }
    }

    /// What a sample did to the capture.
    public enum Status: Sendable, Equatable {
        /// Still so far; `progress` runs 0…1 over the capture duration.
        case capturing(progress: Double)
        /// Movement seen; the capture starts again from this sample.
        case restarted(StillnessFailure)
        /// Finished: the pose is also in `result`.
        case done(NeutralPose)
        /// No still stretch long enough before the timeout; `lastFailure` says what went wrong.
        case timedOut(lastFailure: StillnessFailure?)
    }

    /// The settings in use.
    public let settings: Settings
    /// Accelerometer statistics of the current attempt.
    public private(set) var accel = RunningStats3()
    /// Gyro statistics of the current attempt (empty without gyro data).
    public private(set) var gyro = RunningStats3()
    /// The captured pose once done.
    public private(set) var result: NeutralPose?
    /// The most recent reason for a restart.
    public private(set) var lastFailure: StillnessFailure?
    /// How many times the capture restarted.
    public private(set) var restarts = 0
    private var firstTime: Double?
    private var attemptStart: Double = 0
    private var finished: Status?

    /// A capture waiting for its first sample.
    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Fraction of the duration captured in the current attempt, 0…1.
    public private(set) var progress: Double = 0

    /// Adds one sample (calibrated accel in g, gyro in °/s); after `done` or `timedOut`, repeats it.
    public mutating func feed(_ sample: Sample) -> Status {
        if let finished { return finished }
        let first: Double
        if let f = firstTime { first = f } else { first = sample.t; firstTime = first; attemptStart = first }
        accel.add(sample.accel)
        if let g = sample.gyro { gyro.add(g) }
        let gyroStats: RunningStats3? = gyro.count > 0 ? gyro : nil
        let failure = settings.criteria.check(accel: accel, gyro: gyroStats)
        let elapsed = sample.t - attemptStart
        if let failure, case .tooFewSamples = failure {
            // Not enough data to judge yet: only the timeout can end the attempt.
        } else if let failure {
            lastFailure = failure
            restarts += 1
            accel.reset(); gyro.reset()
            accel.add(sample.accel)
            if let g = sample.gyro { gyro.add(g) }
            attemptStart = sample.t
            progress = 0
            if sample.t - first >= settings.timeout { return finish(.timedOut(lastFailure: failure)) }
            return .restarted(failure)
        } else if elapsed >= settings.duration {
            progress = 1
            let pose = NeutralPose.capture(meanGravity: accel.mean, maxTiltDeg: settings.maxTiltDeg)
            result = pose
            return finish(.done(pose))
        }
        if sample.t - first >= settings.timeout { return finish(.timedOut(lastFailure: lastFailure ?? failure)) }
        progress = settings.duration > 0 ? Swift.min(1, Swift.max(0, elapsed / settings.duration)) : 1
        return .capturing(progress: progress)
    }

    private mutating func finish(_ s: Status) -> Status {
        finished = s
        return s
    }
}
