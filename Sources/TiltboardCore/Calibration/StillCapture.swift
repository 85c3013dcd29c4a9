/// Collects a still stretch of samples: progress, restart on movement, timeout.
///
/// Feed samples in time order; it reads no clock, so the caller (CLI or test) decides what time
/// is. An attempt restarts whenever the samples since its start stop being still, and finishes
/// once it has been still for `duration`. Used for each of the six faces and for the neutral pose.
package struct StillCapture: Sendable {
    /// Durations in seconds and the stillness limits.
    package struct Settings: Sendable, Equatable, Codable {
        /// How long the board must be still.
        package var duration: Double
        /// Give up this long after the first sample.
        package var timeout: Double
        /// Limits for stillness.
        package var criteria: StillnessCriteria

        /// Defaults: 2 s still within 30 s, default stillness.
        package init(duration: Double = 2, timeout: Double = 30, criteria: StillnessCriteria = StillnessCriteria()) {
            self.duration = duration; self.timeout = timeout; self.criteria = criteria
        }
    }

    /// What a sample did to the capture.
    package enum Status: Sendable, Equatable {
        /// Still so far; `progress` runs 0…1 over the duration.
        case capturing(progress: Double)
        /// Movement seen; the attempt starts again from this sample.
        case restarted(StillnessFailure)
        /// Finished: the statistics are in `accel`, `gyro` and `meanTempC`.
        case done
        /// No still stretch long enough before the timeout; `lastFailure` says what went wrong.
        case timedOut(lastFailure: StillnessFailure?)
    }

    /// The settings in use.
    package let settings: Settings
    /// Accelerometer statistics of the current attempt, in g.
    package private(set) var accel = RunningStats3()
    /// Gyro statistics of the current attempt in °/s; empty without gyro data.
    package private(set) var gyroStats = RunningStats3()
    /// Fraction of the duration captured in the current attempt, 0…1.
    package private(set) var progress: Double = 0
    /// The most recent reason for a restart.
    package private(set) var lastFailure: StillnessFailure?
    /// How many times the capture restarted.
    package private(set) var restarts = 0
    private var tempSum = 0.0, tempCount = 0
    private var firstTime: Double?
    private var attemptStart = 0.0
    private var finished: Status?
    private var lastTime: Double?
    private var lastInterval: Double?

    /// A capture waiting for its first sample.
    package init(settings: Settings = Settings()) { self.settings = settings }

    /// The shortest hole between two samples that restarts an attempt (`StillnessFailure.gap`);
    /// a longer one restarts it only beyond four usual sample intervals, so slow rates are not hit.
    package static let minGapSeconds = 0.05

    /// Gyro statistics when the samples carried gyro data.
    package var gyro: RunningStats3? { gyroStats.count > 0 ? gyroStats : nil }
    /// Mean die temperature of the current attempt, when the samples carried one.
    package var meanTempC: Double? { tempCount > 0 ? tempSum / Double(tempCount) : nil }
    /// True once `done`.
    package var isDone: Bool { finished == .done }

    /// Adds one sample (accel in g, gyro in °/s); after `done` or `timedOut`, repeats that status.
    package mutating func feed(_ sample: Sample) -> Status {
        if let finished { return finished }
        let first: Double
        if let f = firstTime { first = f } else { first = sample.t; firstTime = first; attemptStart = first }
        // A hole in the samples (an outage) must not count as captured time: an attempt ends up with
        // as many samples as its duration holds, whatever happened before it.
        var failure: StillnessFailure?
        if let last = lastTime {
            let interval = sample.t - last
            if let usual = lastInterval, interval > Swift.max(StillCapture.minGapSeconds, 4 * usual) {
                failure = .gap(.rounded(seconds: Swift.min(interval, 9e9)))
            } else if interval > 0 {
                lastInterval = interval
            }
        }
        lastTime = sample.t
        if failure == nil {
            add(sample)
            failure = settings.criteria.check(accel: accel, gyro: gyro)
        }
        let elapsed = sample.t - attemptStart
        let timedOut = sample.t - first >= settings.timeout
        switch failure {
        case .tooFewSamples?, nil:
            // Too few samples to judge yet: only the timeout can end the attempt.
            if failure == nil, elapsed >= settings.duration {
                progress = 1
                return finish(.done)
            }
            if timedOut { return finish(.timedOut(lastFailure: lastFailure ?? failure)) }
            progress = settings.duration > 0 ? Swift.min(1, Swift.max(0, elapsed / settings.duration)) : 1
            return .capturing(progress: progress)
        case let failure?:
            lastFailure = failure
            restarts += 1
            accel.reset(); gyroStats.reset(); tempSum = 0; tempCount = 0
            add(sample)
            attemptStart = sample.t
            progress = 0
            if timedOut { return finish(.timedOut(lastFailure: failure)) }
            return .restarted(failure)
        }
    }

    private mutating func add(_ sample: Sample) {
        accel.add(sample.accel)
        if let g = sample.gyro { gyroStats.add(g) }
        if let t = sample.tempC { tempSum += t; tempCount += 1 }
    }

    private mutating func finish(_ s: Status) -> Status {
        finished = s
        return s
    }
}
