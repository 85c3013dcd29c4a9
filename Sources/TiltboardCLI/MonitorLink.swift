import Synchronization
import Tiltboard
import TiltboardCore

/// What the loop thread publishes after every sample for the screen to draw.
struct MonitorSnapshot: Sendable {
    var samples: UInt64 = 0
    /// Loop time of the latest sample, seconds.
    var t: Double = 0
    var pitchDeg: Double = 0
    var rollDeg: Double = 0
    var x: Double = 0
    var y: Double = 0
    var shaking = false
    var shakes = 0
    /// Loop time the latest shake started; −∞ before the first.
    var lastShakeStart = -Double.infinity
    /// Largest linear acceleration the shake detector saw since the screen last took a
    /// snapshot (`takeSnapshot`), g; and its threshold.
    var linearPeakG = 0.0
    var thresholdG = ShakeDetectorSettings.standard.thresholdG
}

/// What the loop thread hands the monitor's screen thread: the latest view and a captured pose.
/// The loop thread only copies fixed-size values under a lock: nothing it does allocates. (The
/// screen's requests go the other way through the loop's mailbox, `RunningLoop.perform`.)
final class MonitorLink: Sendable {
    private let latest = Mutex(MonitorSnapshot())
    private let captured = Mutex<(pose: NeutralPose, summary: CaptureSummary)?>(nil)

    /// Loop thread: the pose just applied, for the screen thread to save.
    func handBack(_ pose: NeutralPose, _ summary: CaptureSummary) {
        captured.withLock { $0 = (pose, summary) }
    }

    /// Screen thread: a pose waiting to be saved, taken.
    func takeCaptured() -> (pose: NeutralPose, summary: CaptureSummary)? {
        captured.withLock { c in
            defer { c = nil }
            return c
        }
    }

    /// Loop thread: the latest sample's view.
    func publish(_ out: PipelineOutput) {
        latest.withLock { s in
            s.samples &+= 1
            s.t = out.t
            s.pitchDeg = out.tilt.pitchDeg
            s.rollDeg = out.tilt.rollDeg
            s.x = out.control.x
            s.y = out.control.y
            s.shaking = out.shaking
            s.linearPeakG = Swift.max(s.linearPeakG, out.linearG)
            s.thresholdG = out.shakeThresholdG
            if let event = out.shakeEvent, event.phase == .started {
                s.shakes += 1
                s.lastShakeStart = out.t
            }
        }
    }

    /// Screen thread: a copy of the latest view.
    var snapshot: MonitorSnapshot { latest.withLock { $0 } }

    /// Screen thread: a copy of the latest view, starting the next linear-acceleration peak.
    func takeSnapshot() -> MonitorSnapshot {
        latest.withLock { s in
            defer { s.linearPeakG = 0 }
            return s
        }
    }
}

/// The monitor's work on the loop thread, for every sample: record the board-frame acceleration,
/// finish a capture asked for, publish the view. Allocates nothing. The screen asks for a capture
/// or a level neutral with `capture(on:)` and `level(on:)`, through the loop's mailbox.
final class MonitorLoopSide: @unchecked Sendable {
    let link: MonitorLink
    let recent: RecentAccel
    /// The capture in raw sensor terms for the profile (`BoardSession.neutralSource`).
    let neutralSource: (_ boardMeanG: Vector3, _ chain: TiltTracker) -> CalibrationProfile.NeutralSource?

    /// Keeps `captureSeconds` of samples at `rateHz` for the neutral capture; `neutralSource`
    /// gives a capture's mean in raw sensor terms for the profile.
    init(link: MonitorLink, rateHz: Double, captureSeconds: Double,
         neutralSource: @escaping (_ boardMeanG: Vector3, _ chain: TiltTracker) -> CalibrationProfile.NeutralSource? = { _, _ in nil }) {
        self.link = link
        self.neutralSource = neutralSource
        recent = RecentAccel(capacity: Int((rateHz * captureSeconds).rounded(.up)))
    }

    /// Any thread: captures the current pose from the recent samples at the next tick boundary,
    /// applies it and hands it back (`MonitorLink.takeCaptured`).
    func capture(on loop: TiltLoop) {
        loop.perform { [self] _ in recent.captureWanted = true }
    }

    /// Any thread: applies a level neutral at the next tick boundary.
    func level(on loop: TiltLoop) {
        loop.perform { [self] loop in
            recent.captureWanted = false
            loop.setNeutral(.level)
        }
    }

    /// Loop thread only, from the loop's `output`.
    func handle(_ out: PipelineOutput, loop: TiltLoop) {
        recent.append(out.accel)
        if let c = out.tempC { recent.temperatureC = c }
        // Right after start-up the window is not full yet: wait for a whole one.
        if recent.captureWanted, recent.count >= recent.capacity {
            recent.captureWanted = false
            let pose = NeutralPose.capture(meanGravity: recent.mean)
            loop.setNeutral(pose)
            link.handBack(pose, CaptureSummary(sampleCount: recent.count, noiseMg: recent.noiseMg,
                                               temperatureC: recent.temperatureC,
                                               neutralSource: neutralSource(recent.mean, loop.pipeline.tracker)))
        }
        link.publish(out)
    }
}

/// The last `capacity` board-frame accelerations, in storage allocated once: the neutral pose
/// is the mean of the most recent ~0.5 s when `c` is pressed. Loop thread only.
final class RecentAccel {
    let capacity: Int
    private let storage: UnsafeMutablePointer<Vector3>
    private var next = 0
    private(set) var count = 0
    /// The latest die temperature, for the profile.
    var temperatureC: Double?
    /// A capture was asked for and waits for a full window.
    var captureWanted = false

    init(capacity: Int) {
        self.capacity = Swift.max(1, capacity)
        storage = .allocate(capacity: self.capacity)
        storage.initialize(repeating: .zero, count: self.capacity)
    }

    deinit { storage.deallocate() }

    func append(_ v: Vector3) {
        storage[next] = v
        next = (next + 1) % capacity
        count = Swift.min(count + 1, capacity)
    }

    /// Mean of what is held (+Z when empty).
    var mean: Vector3 {
        guard count > 0 else { return .unitZ }
        var sum = Vector3.zero
        for i in 0..<count { sum = sum + storage[i] }
        return sum * (1 / Double(count))
    }

    /// Per-axis standard deviation in mg.
    var noiseMg: Vector3 {
        guard count > 1 else { return .zero }
        let m = mean
        var sx = 0.0, sy = 0.0, sz = 0.0
        for i in 0..<count {
            let d = storage[i] - m
            sx += d.x * d.x; sy += d.y * d.y; sz += d.z * d.z
        }
        let n = Double(count - 1)
        return Vector3((sx / n).squareRoot(), (sy / n).squareRoot(), (sz / n).squareRoot()) * 1000
    }
}
