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
/// Feed calibrated samples in time order; it reads no clock. A thin layer over `StillCapture`
/// that turns the finished capture into a `NeutralPose`.
public struct NeutralCapture: Sendable {
    /// Durations in seconds, stillness limits and the steepest neutral accepted.
    public struct Settings: Sendable, Equatable {
        /// Duration, timeout and stillness limits.
        package var still: StillCapture.Settings
        /// Passed to `NeutralPose.capture`.
        public var maxTiltDeg: Double

        /// Still for `duration` within `timeout`, by `criteria`; the defaults are 2 s still within
        /// 30 s, default stillness, 30° maximum neutral tilt.
        public init(duration: Duration = .seconds(2), timeout: Duration = .seconds(30),
                    criteria: StillnessCriteria = StillnessCriteria(), maxTiltDeg: Double = 30) {
            still = StillCapture.Settings(duration: duration.inSeconds, timeout: timeout.inSeconds, criteria: criteria)
            self.maxTiltDeg = maxTiltDeg
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
    /// The underlying capture (statistics, restarts, last failure).
    package private(set) var capture: StillCapture
    /// The captured pose once done.
    public private(set) var result: NeutralPose?

    /// A capture waiting for its first sample.
    public init(settings: Settings = Settings()) {
        self.settings = settings
        capture = StillCapture(settings: settings.still)
    }

    /// Fraction of the duration captured in the current attempt, 0…1.
    public var progress: Double { capture.progress }
    /// How many times the capture restarted.
    public var restarts: Int { capture.restarts }
    /// The most recent reason for a restart.
    public var lastFailure: StillnessFailure? { capture.lastFailure }

    /// Adds one calibrated sample; after `done` or `timedOut`, repeats that status.
    public mutating func feed(_ sample: Sample) -> Status {
        switch capture.feed(sample) {
        case let .capturing(p): return .capturing(progress: p)
        case let .restarted(why): return .restarted(why)
        case let .timedOut(last): return .timedOut(lastFailure: last)
        case .done:
            if let result { return .done(result) }
            let pose = NeutralPose.capture(meanGravity: capture.accel.mean, maxTiltDeg: settings.maxTiltDeg)
            result = pose
            return .done(pose)
        }
    }
}
