import TiltboardCore

/// A scripted sequence of poses and movements that drives a simulated chip.
///
/// Time starts at 0 s in `start` pose and runs through `segments` in order; after the last one
/// the final pose holds forever. Poses use `TiltAngles` (the package's one pitch/roll
/// convention). Rotations ease in and out (cosine) and report the matching body-frame rate on
/// the gyro; shake, tap, put-down, walk, move and circle add linear acceleration to gravity's
/// reaction; a wrist shake swings the board about a pivot, so it turns (gyro, gravity) as well.
///
/// JSON form (all keys but `segments` optional; `axis` is in the sensor frame):
/// ```
/// {"start": {"pitchDeg": 0, "rollDeg": 0}, "tempC": 25,
///  "segments": [
///   {"hold":    {"pitchDeg": 0, "rollDeg": 0, "seconds": 1}},
///   {"rotate":  {"pitchDeg": 30, "rollDeg": 0, "seconds": 1.5}},
///   {"shake":   {"axis": [1, 0, 0], "frequencyHz": 4, "peakG": 2, "seconds": 1}},
///   {"tap":     {"axis": [0, 0, -1], "peakG": 3, "spikeSeconds": 0.02, "seconds": 0.5}},
///   {"putDown": {"impactG": 1.5, "seconds": 1}},
///   {"walk":    {"bounceG": 0.67, "stepHz": 1.92, "seconds": 5}},
///   {"move":    {"axis": [1, 0, 0], "peakG": 1.9, "accelSeconds": 0.25, "stopSeconds": 0.25,
///                "rebound": 0.21, "seconds": 1.75}},
///   {"circle":  {"axis": [1, 0, 0], "across": [0, 0, 1], "peakG": 1.8, "turns": 1, "aspect": 1,
///                "seconds": 1.3}},
///   {"wristShake": {"axis": [1, 0, 0], "pivot": [0, -1, 0], "frequencyHz": 3, "peakG": 3,
///                   "swingDeg": 18.5, "seconds": 1.1667}}]}
/// ```
/// `hold` without angles keeps the current pose. `move` takes `accelSeconds` 0.25, `stopSeconds`
/// 0.25 and `rebound` 0 unless given, and its `seconds` must cover the motion; `circle` takes `axis` [1, 0, 0], `across` [0, 0, 1],
/// `turns` 1 and `aspect` 1; `wristShake` takes `pivot` [0, -1, 0] and `swingDeg` 18.5.
public struct MotionScript: MotionSource, Equatable {
    /// One piece of a script.
    public enum Segment: Sendable, Equatable {
        /// Rest in `pose` (jumping to it) for the span given.
        case hold(TiltAngles, for: Duration)
        /// Turn smoothly from the current pose to `to` over the span given.
        case rotate(to: TiltAngles, over: Duration)
        /// Sinusoidal linear acceleration peak·sin(2π·f·(t − start)) along `axis` (sensor frame),
        /// at full amplitude from the first instant, for the span given.
        case shake(axis: Vector3, frequencyHz: Double, peakG: Double, for: Duration)
        /// A tap: a half-sine spike of `peakG` lasting `spike` along `axis`, the rebound the other
        /// way and a smaller swing back (see `tapAccel`), then rest until the segment's span ends.
        case tap(axis: Vector3, peakG: Double, spike: Duration, for: Duration)
        /// Lowered onto a table: a gentle downward acceleration, a ~20 ms impact of `impactG`, rest.
        case putDown(impactG: Double, for: Duration)
        /// Carried at the waist while walking (or on stairs): a heel strike each step whose
        /// vertical peak is `bounceG` above gravity on a median step, at `stepHz` steps a second,
        /// with fore-aft and sideways sway (see `walkAccel`).
        case walk(bounceG: Double, stepHz: Double, for: Duration)
        /// A single move along `axis` (sensor frame) that ends at rest: a half-sine push of
        /// `peakG` for `accel`, a half-sine stop the other way for `stop` (its peak is whatever
        /// ends the move at rest, peakG·accel/stop: a short stop is a sharp one), then, when
        /// `rebound` > 0, a half-sine of `rebound` × the larger of the two peaks the push's way, as
        /// long as the stop, and a slow return a quarter as strong and four times as long (see
        /// `moveAccel`); then rest until the segment's span ends.
        case move(axis: Vector3, peakG: Double, accel: Duration, stop: Duration, rebound: Double, for: Duration)
        /// Carried round `turns` circles in the plane of `axis` and `across` (sensor frame; the
        /// part of `across` at right angles to `axis` is used), from rest to rest: the linear
        /// acceleration turns round rather than reversing, peaking at `peakG` (see `circleAccel`).
        /// With `aspect` < 1 the circle is squashed across `axis` into an ellipse.
        case circle(axis: Vector3, across: Vector3, turns: Double, peakG: Double, aspect: Double, for: Duration)
        /// A shake swung from the wrist: the board turns to and fro by up to `swingDeg` about a
        /// pivot in the direction `pivot` (sensor frame; the part at right angles to `axis` is
        /// used), at `frequencyHz`, so its acceleration along `axis` peaks at `peakG` (the
        /// tangential part, reversing), it is pulled toward the pivot twice a cycle (the
        /// centripetal part, `swingDeg` in radians × `peakG` at most), the gyro sees the turn and
        /// gravity's reaction turns with the board. It builds up over its first cycle and dies
        /// down over its last, from rest to rest (see `wristSwing`).
        case wristShake(axis: Vector3, pivot: Vector3, frequencyHz: Double, peakG: Double, swingDeg: Double,
                        for: Duration)

        /// The segment with its spans in seconds, as the script's maths uses them.
        package enum Raw: Sendable, Equatable {
            /// Rest in `pose` (jumping to it) for `seconds`.
            case hold(TiltAngles, seconds: Double)
            /// Turn smoothly from the current pose to `to` over `seconds`.
            case rotate(to: TiltAngles, seconds: Double)
            /// Sinusoidal linear acceleration peak·sin(2π·f·(t − start)) along `axis` (sensor frame),
            /// at full amplitude from the first instant.
            case shake(axis: Vector3, frequencyHz: Double, peakG: Double, seconds: Double)
            /// A tap: a half-sine spike of `peakG` lasting `spikeSeconds` along `axis`, the rebound
            /// the other way and a smaller swing back (see `tapAccel`), then rest.
            case tap(axis: Vector3, peakG: Double, spikeSeconds: Double, seconds: Double)
            /// Lowered onto a table: a gentle downward acceleration, a ~20 ms impact of `impactG`, rest.
            case putDown(impactG: Double, seconds: Double)
            /// Carried at the waist while walking (or on stairs): a heel strike each step whose
            /// vertical peak is `bounceG` above gravity on a median step, at `stepHz` steps a second,
            /// with fore-aft and sideways sway (see `walkAccel`).
            case walk(bounceG: Double, stepHz: Double, seconds: Double)
            /// A single move along `axis` (sensor frame) that ends at rest: a half-sine push of
            /// `peakG` for `accelSeconds`, a half-sine stop the other way for `stopSeconds` (its peak
            /// is whatever ends the move at rest, peakG·accelSeconds/stopSeconds: a short stop is a
            /// sharp one), then, when `rebound` > 0, a half-sine of `rebound` × the larger of the two
            /// peaks the push's way, as long as the stop, and a slow return a quarter as strong and
            /// four times as long (see `moveAccel`); then rest until `seconds`.
            case move(axis: Vector3, peakG: Double, accelSeconds: Double, stopSeconds: Double, rebound: Double,
                      seconds: Double)
            /// Carried round `turns` circles in the plane of `axis` and `across` (sensor frame; the
            /// part of `across` at right angles to `axis` is used), from rest to rest: the linear
            /// acceleration turns round rather than reversing, peaking at `peakG` (see `circleAccel`).
            /// With `aspect` < 1 the circle is squashed across `axis` into an ellipse.
            case circle(axis: Vector3, across: Vector3, turns: Double, peakG: Double, aspect: Double, seconds: Double)
            /// A shake swung from the wrist: the board turns to and fro by up to `swingDeg` about a
            /// pivot in the direction `pivot` (sensor frame; the part at right angles to `axis` is
            /// used), at `frequencyHz`, so its acceleration along `axis` peaks at `peakG` (the
            /// tangential part, reversing), it is pulled toward the pivot twice a cycle (the
            /// centripetal part, `swingDeg` in radians × `peakG` at most), the gyro sees the turn and
            /// gravity's reaction turns with the board. It builds up over its first cycle and dies
            /// down over its last, from rest to rest (see `wristSwing`).
            case wristShake(axis: Vector3, pivot: Vector3, frequencyHz: Double, peakG: Double, swingDeg: Double,
                            seconds: Double)

            /// How long the segment lasts, in seconds.
            package var seconds: Double {
                switch self {
                case let .hold(_, s), let .rotate(_, s), let .shake(_, _, _, s), let .tap(_, _, _, s),
                     let .putDown(_, s), let .walk(_, _, s), let .move(_, _, _, _, _, s), let .circle(_, _, _, _, _, s),
                     let .wristShake(_, _, _, _, _, s):
                    return s
                }
            }
        }

        /// The segment with its spans in seconds.
        package var raw: Raw {
            switch self {
            case let .hold(p, s): return .hold(p, seconds: s.inSeconds)
            case let .rotate(p, s): return .rotate(to: p, seconds: s.inSeconds)
            case let .shake(axis, f, peak, s): return .shake(axis: axis, frequencyHz: f, peakG: peak, seconds: s.inSeconds)
            case let .tap(axis, peak, spike, s):
                return .tap(axis: axis, peakG: peak, spikeSeconds: spike.inSeconds, seconds: s.inSeconds)
            case let .putDown(impact, s): return .putDown(impactG: impact, seconds: s.inSeconds)
            case let .walk(bounce, hz, s): return .walk(bounceG: bounce, stepHz: hz, seconds: s.inSeconds)
            case let .move(axis, peak, accel, stop, rebound, s):
                return .move(axis: axis, peakG: peak, accelSeconds: accel.inSeconds, stopSeconds: stop.inSeconds,
                             rebound: rebound, seconds: s.inSeconds)
            case let .circle(axis, across, turns, peak, aspect, s):
                return .circle(axis: axis, across: across, turns: turns, peakG: peak, aspect: aspect, seconds: s.inSeconds)
            case let .wristShake(axis, pivot, f, peak, swing, s):
                return .wristShake(axis: axis, pivot: pivot, frequencyHz: f, peakG: peak, swingDeg: swing, seconds: s.inSeconds)
            }
        }

        // The segments with their spans in seconds: the script file's, the built-ins' and the
        // tests' form.
        package static func hold(_ pose: TiltAngles, seconds: Double) -> Segment {
            .hold(pose, for: span(seconds))
        }
        package static func rotate(to pose: TiltAngles, seconds: Double) -> Segment {
            .rotate(to: pose, over: span(seconds))
        }
        package static func shake(axis: Vector3, frequencyHz: Double, peakG: Double, seconds: Double) -> Segment {
            .shake(axis: axis, frequencyHz: frequencyHz, peakG: peakG, for: span(seconds))
        }
        package static func tap(axis: Vector3, peakG: Double, spikeSeconds: Double, seconds: Double) -> Segment {
            .tap(axis: axis, peakG: peakG, spike: span(spikeSeconds), for: span(seconds))
        }
        package static func putDown(impactG: Double, seconds: Double) -> Segment {
            .putDown(impactG: impactG, for: span(seconds))
        }
        package static func walk(bounceG: Double, stepHz: Double, seconds: Double) -> Segment {
            .walk(bounceG: bounceG, stepHz: stepHz, for: span(seconds))
        }
        package static func move(axis: Vector3, peakG: Double, accelSeconds: Double, stopSeconds: Double, rebound: Double,
                                 seconds: Double) -> Segment {
            .move(axis: axis, peakG: peakG, accel: span(accelSeconds), stop: span(stopSeconds), rebound: rebound,
                  for: span(seconds))
        }
        package static func circle(axis: Vector3, across: Vector3, turns: Double, peakG: Double, aspect: Double,
                                   seconds: Double) -> Segment {
            .circle(axis: axis, across: across, turns: turns, peakG: peakG, aspect: aspect, for: span(seconds))
        }
        package static func wristShake(axis: Vector3, pivot: Vector3, frequencyHz: Double, peakG: Double, swingDeg: Double,
                                       seconds: Double) -> Segment {
            .wristShake(axis: axis, pivot: pivot, frequencyHz: frequencyHz, peakG: peakG, swingDeg: swingDeg,
                        for: span(seconds))
        }

        /// `seconds` as a Duration (attosecond resolution, so the seconds read back as given); NaN
        /// reads as -1 s and spans past ±9e9 s as that, so that the script's check rejects them.
        static func span(_ seconds: Double) -> Duration {
            seconds.isNaN ? .seconds(-1) : .seconds(Swift.max(-9e9, Swift.min(seconds, 9e9)))
        }

        /// How long the segment lasts.
        public var length: Duration { MotionScript.span(seconds: seconds) }

        /// How long the segment lasts, in seconds (the script's maths and its file's unit).
        package var seconds: Double { raw.seconds }
    }

    /// The pose at time 0.
    public private(set) var start: TiltAngles
    /// Die temperature reported throughout.
    public var tempC: Double
    /// The segments in play order.
    public private(set) var segments: [Segment]
    private var steps: [Step] = []
    private var endPose = TiltAngles(pitchDeg: 0, rollDeg: 0)
    private var endOrientation = Quaternion.identity
    private var endTime = 0.0

    /// A script; throws when a segment has a negative length, a zero axis or a non-positive frequency.
    public init(start: TiltAngles = TiltAngles(pitchDeg: 0, rollDeg: 0), tempC: Double = 25,
                segments: [Segment]) throws {
        self.start = start
        self.tempC = tempC
        self.segments = segments
        try compile()
    }

    /// Total length of the segments; nil for a script without segments (it rests forever).
    public var duration: Duration? { durationSeconds.map { Self.span(seconds: $0) } }

    /// Total length of the segments in seconds; nil for a script without segments.
    package var durationSeconds: Double? { steps.isEmpty ? nil : endTime }

    /// `seconds` as a Duration to the nanosecond; a span past what a Duration of nanoseconds holds
    /// (about 290 years) reads as 9e9 s.
    package static func span(seconds: Double) -> Duration {
        .rounded(seconds: Swift.min(seconds, 9e9))
    }

    /// The pose reached at the end of the script.
    public var finalPose: TiltAngles { endPose }

    public static func == (a: MotionScript, b: MotionScript) -> Bool {
        a.start == b.start && a.tempC == b.tempC && a.segments == b.segments
    }

    // MARK: Evaluation

    /// Precomputed timing and orientation for one segment.
    private struct Step: Sendable {
        var segment: Segment.Raw
        var begin: Double
        var end: Double
        /// Orientation (body → world) at the start of the segment.
        var from: Quaternion
        /// Rotation axis (body frame, unit) and angle in radians for `rotate`.
        var axis: Vector3
        var angle: Double
        /// For `circle`: the circle's radius in g·s² (peakG over the largest unit-radius
        /// acceleration) and the unit vector at right angles to its `axis` in its plane. For
        /// `wristShake`: the radius (peakG over the swing's angular acceleration) and the unit
        /// vector toward the pivot; `axis` is then the turn's axis.
        var scale = 0.0
        var across = Vector3.zero
    }

    /// The body → world orientation for a pose, chosen so that its gravity reaction equals
    /// `TiltAngles.gravity`: R = Ry(roll)·Rx(−pitch).
    static func orientation(_ pose: TiltAngles) -> Quaternion {
        Quaternion(axis: Vector3(0, 1, 0), angle: radians(pose.rollDeg))
            * Quaternion(axis: Vector3(1, 0, 0), angle: -radians(pose.pitchDeg))
    }

    private mutating func compile() throws {
        var t = 0.0
        var pose = start
        var q = Self.orientation(start)
        steps.removeAll()
        for (index, segment) in segments.enumerated() {
            let number = index + 1
            guard segment.seconds >= 0, segment.seconds.isFinite else {
                throw MotionScriptError(.outOfRange(segment: number, kind: nil, key: "seconds", value: segment.seconds, rule: .finiteNonNegative))
            }
            var step = Step(segment: segment.raw, begin: t, end: t + segment.seconds, from: q, axis: .zero, angle: 0)
            switch segment.raw {
            case let .hold(p, _):
                pose = p
                q = Self.orientation(p)
                step.from = q
            case let .rotate(p, _):
                let target = Self.orientation(p)
                var delta = q.conjugate * target
                if delta.w < 0 { delta = Quaternion(w: -delta.w, x: -delta.x, y: -delta.y, z: -delta.z) }
                let v = Vector3(delta.x, delta.y, delta.z)
                if v.length > 1e-12 {
                    step.axis = v.normalized
                    step.angle = 2 * atan2Safe(v.length, delta.w)
                }
                pose = p
                q = target
            case let .shake(axis, f, _, _):
                guard axis.length > 0 else { throw MotionScriptError(.zeroVector(segment: number, kind: "shake", key: "axis")) }
                guard f > 0 else { throw MotionScriptError(.outOfRange(segment: number, kind: "shake", key: "frequencyHz", value: f, rule: .positive)) }
            case let .tap(axis, _, spike, _):
                guard axis.length > 0 else { throw MotionScriptError(.zeroVector(segment: number, kind: "tap", key: "axis")) }
                guard spike > 0 else { throw MotionScriptError(.outOfRange(segment: number, kind: "tap", key: "spikeSeconds", value: spike, rule: .positive)) }
            case .putDown:
                break
            case let .walk(_, stepHz, _):
                guard stepHz > 0 else { throw MotionScriptError(.outOfRange(segment: number, kind: "walk", key: "stepHz", value: stepHz, rule: .positive)) }
            case let .move(axis, peak, accelSeconds, stopSeconds, rebound, seconds):
                let name = "move"
                guard axis.length > 0 else { throw MotionScriptError(.zeroVector(segment: number, kind: name, key: "axis")) }
                guard peak.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "peakG", value: peak, rule: .finite)) }
                guard accelSeconds > 0, accelSeconds.isFinite, stopSeconds > 0, stopSeconds.isFinite else {
                    throw MotionScriptError(.moveRamps(segment: number, givenAccel: accelSeconds, givenStop: stopSeconds))
                }
                guard rebound >= 0, rebound.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "rebound", value: rebound, rule: .nonNegative)) }
                let length = Self.moveSeconds(accelSeconds: accelSeconds, stopSeconds: stopSeconds, rebound: rebound)
                guard seconds >= length - 1e-9 else {
                    throw MotionScriptError(.moveTooShort(segment: number, least: Self.span(seconds: length), given: Self.span(seconds: seconds)))
                }
            case let .circle(axis, across, turns, peak, aspect, seconds):
                let name = "circle"
                let (u, v) = try Self.plane(axis, across, key: "across", segment: number, kind: name)
                guard turns > 0, turns.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "turns", value: turns, rule: .positive)) }
                guard peak >= 0, peak.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "peakG", value: peak, rule: .nonNegative)) }
                guard aspect > 0, aspect <= 1 else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "aspect", value: aspect, rule: .aboveZeroUpToOne)) }
                guard seconds > 0 else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "seconds", value: nil, rule: .positive)) }
                step.axis = u
                step.across = v
                step.scale = peak / Self.circleUnitPeak(turns: turns, aspect: aspect, seconds: seconds)
            case let .wristShake(axis, pivot, f, peak, swingDeg, seconds):
                let name = "wristShake"
                let (u, w) = try Self.plane(axis, pivot, key: "pivot", segment: number, kind: name)
                guard f > 0, f.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "frequencyHz", value: f, rule: .positive)) }
                guard peak.isFinite else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "peakG", value: peak, rule: .finite)) }
                guard swingDeg > 0, swingDeg < 90 else {
                    throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "swingDeg", value: swingDeg, rule: .aboveZeroBelow90))
                }
                guard seconds > 0 else { throw MotionScriptError(.outOfRange(segment: number, kind: name, key: "seconds", value: nil, rule: .positive)) }
                // Turning about u × w moves the board (away from the pivot) along +u.
                step.across = w
                step.axis = u.cross(w)
                let omega = 2 * Double.pi * f
                step.scale = peak / (radians(swingDeg) * omega * omega)
            }
            steps.append(step)
            t = step.end
        }
        endPose = pose
        endOrientation = q
        endTime = t
    }

    /// `axis` made unit, and the unit part of `other` at right angles to it; throws naming `key`
    /// in segment `name` when either is missing.
    private static func plane(_ axis: Vector3, _ other: Vector3, key: String, segment: Int, kind: String) throws -> (Vector3, Vector3) {
        guard axis.length > 0 else { throw MotionScriptError(.zeroVector(segment: segment, kind: kind, key: "axis")) }
        let u = axis.normalized
        let w = other - u * other.dot(u)
        guard w.length > 1e-9 * max(1, other.length) else {
            throw MotionScriptError(.alongAxis(segment: segment, kind: kind, key: key))
        }
        return (u, w.normalized)
    }

    public func state(at t: Double) -> PhysicalState {
        // Indexing only: the generic collection accessors allocate for this large element unoptimised.
        let count = steps.count
        guard count > 0 else {
            return PhysicalState(accelG: start.gravity, tempC: tempC)
        }
        if !(t < endTime) || t.isNaN {
            return PhysicalState(accelG: endOrientation.conjugate.rotate(.unitZ), tempC: tempC)
        }
        var i = 0
        while i < count - 1 && !(t < steps[i].end) { i += 1 }
        let step = steps[i]
        let tau = max(0, t - step.begin)
        let up = step.from.conjugate.rotate(.unitZ)
        switch step.segment {
        case .hold:
            return PhysicalState(accelG: up, tempC: tempC)
        case let .rotate(_, seconds):
            guard seconds > 0, step.angle > 0 else { return PhysicalState(accelG: up, tempC: tempC) }
            let phase = Double.pi * tau / seconds
            let s = (1 - cosine(phase)) / 2
            let sDot = Double.pi / (2 * seconds) * sine(phase)
            let q = step.from * Quaternion(axis: step.axis, angle: s * step.angle)
            let omega = step.axis * degrees(step.angle * sDot)
            return PhysicalState(accelG: q.conjugate.rotate(.unitZ), gyroDps: omega, tempC: tempC)
        case let .shake(axis, f, peak, _):
            let a = axis.normalized * (peak * sine(2 * Double.pi * f * tau))
            return PhysicalState(accelG: up + a, tempC: tempC)
        case let .tap(axis, peak, spike, _):
            return PhysicalState(accelG: up + axis.normalized * Self.tapAccel(tau, peakG: peak, spikeSeconds: spike),
                                 tempC: tempC)
        case let .putDown(impact, _):
            return PhysicalState(accelG: up + step.from.conjugate.rotate(Self.putDownAccel(tau, impactG: impact)),
                                 tempC: tempC)
        case let .walk(bounce, stepHz, seconds):
            let world = Self.walkAccel(tau, bounceG: bounce, stepHz: stepHz, seconds: seconds)
            return PhysicalState(accelG: up + step.from.conjugate.rotate(world), tempC: tempC)
        case let .move(axis, peak, accelSeconds, stopSeconds, rebound, _):
            let a = Self.moveAccel(tau, peakG: peak, accelSeconds: accelSeconds, stopSeconds: stopSeconds, rebound: rebound)
            return PhysicalState(accelG: up + axis.normalized * a, tempC: tempC)
        case let .circle(_, _, turns, _, aspect, seconds):
            let (along, across) = Self.circleAccel(tau, turns: turns, aspect: aspect, seconds: seconds)
            return PhysicalState(accelG: up + (step.axis * along + step.across * across) * step.scale, tempC: tempC)
        case let .wristShake(axis, _, f, _, swingDeg, seconds):
            let amplitude = radians(swingDeg)
            let swing = Self.wristSwing(tau, frequencyHz: f, seconds: seconds)
            let angle = amplitude * swing.angle, rate = amplitude * swing.rate
            let q = step.from * Quaternion(axis: step.axis, angle: angle)
            let linear = axis.normalized * (step.scale * amplitude * swing.accel) + step.across * (step.scale * rate * rate)
            return PhysicalState(accelG: q.conjugate.rotate(.unitZ) + linear, gyroDps: step.axis * degrees(rate),
                                 tempC: tempC)
        }
    }

    /// A wrist shake's swing angle over its amplitude, with its first and second time derivatives,
    /// `tau` seconds into a shake of `seconds`: φ = −e(τ)·sin(2πfτ), the envelope e rising from 0
    /// to 1 over the first period and falling back over the last (raised cosines, so the board
    /// starts and ends at rest and level with where it began).
    ///
    /// Shaped on the Wiimote recordings' shakes (UCR "AllGestureWiimote", Dau et al., IEEE/CAA J.
    /// Autom. Sinica 6(6), 2019, from Guna, Humar and Pogačnik, TSP 2012; the 50 shakes of the
    /// even-numbered half, 100 Hz; spectra of each whole gesture, the main axis its principal
    /// one): across the main axis they carry a component at twice the shake
    /// frequency of 0.16 × the main one (median; p10 0.08, p90 0.21), mostly along the
    /// controller's length (0.80 of it, median), the pull toward a wrist behind it; for a swing
    /// φ = Φ·sin ωt that ratio is Φ/2, so hands swing by about 18.5° (p10 9°, p90 25°). The
    /// half-cycles build up and die down — measured (median): the first 0.54 × the median
    /// half-cycle, the second 0.95, the third 1.14, the last 0.70 — which these ramps give as 0.60,
    /// 1.05, 1, …, 1.05, 0.60. With 3 g at 3 Hz and 18.5° the pivot sits 0.26 m away (a forearm
    /// and hand) and the gyro peaks at 349 °/s.
    static func wristSwing(_ tau: Double, frequencyHz f: Double, seconds: Double)
        -> (angle: Double, rate: Double, accel: Double) {
        let ramp = 1 / f
        // The raised cosine 0 → 1 over `ramp`, with its derivatives, x seconds from an end.
        func rise(_ x: Double) -> (Double, Double, Double) {
            guard x < ramp else { return (1, 0, 0) }
            guard x > 0 else { return (0, 0, 0) }
            let k = Double.pi / ramp
            return ((1 - cosine(k * x)) / 2, k / 2 * sine(k * x), k * k / 2 * cosine(k * x))
        }
        let (r, r1, r2) = rise(tau)
        let (g, g1, g2) = rise(seconds - tau)
        let e = r * g, e1 = r1 * g - r * g1, e2 = r2 * g - 2 * r1 * g1 + r * g2
        let omega = 2 * Double.pi * f
        let s = sine(omega * tau), c = cosine(omega * tau)
        return (-e * s, -(e1 * s + e * omega * c), -(e2 * s + 2 * e1 * omega * c - e * omega * omega * s))
    }

    /// How long a move's motion lasts: the push, the stop and, with a rebound, the rebound and
    /// its return.
    static func moveSeconds(accelSeconds: Double, stopSeconds: Double, rebound: Double) -> Double {
        accelSeconds + stopSeconds + (rebound > 0 ? 5 * stopSeconds : 0)
    }

    /// Linear acceleration (g) along a move's axis, `tau` seconds into it. Shaped on the Wiimote
    /// gesture recordings (UCR "AllGestureWiimote", Dau et al., IEEE/CAA J. Autom. Sinica 6(6),
    /// 2019; from Guna, Humar and Pogačnik, TSP 2012; even-numbered half, 100 Hz, gravity taken
    /// out by interpolating between the still start and end, lobes beyond 0.3 g along the main
    /// axis): the 173 of 200 single moves right, left, up and down with two such lobes push with
    /// 1.89 g (median; p10 0.85 g, p90 3.76 g) and stop with 2.06 g (p10 0.84 g, p90 4.73 g),
    /// each lobe 0.25 s between zero crossings (p10 0.13 s, p90 0.52 s); 40 of them
    /// (23 %) swing back once more beyond 0.3 g, by 0.21 × the larger lobe (median; p10 0.11,
    /// p90 0.50), about as long as the stop (0.83 × between zero crossings; p10 0.42, p90 1.40),
    /// and nothing beyond 0.3 g follows the rebound (median; p90 0.54 × the rebound). Pushes toward
    /// and away from the screen rebound more often (29 %) and harder (0.31 ×, p90 0.61). Half-sine
    /// lobes; the stop's peak is sized so the board ends at rest (equal areas), and so is the
    /// rebound's slow return (a quarter of its size over four times its length).
    static func moveAccel(_ tau: Double, peakG: Double, accelSeconds: Double, stopSeconds: Double,
                          rebound: Double) -> Double {
        if tau < 0 { return 0 }
        if tau < accelSeconds { return peakG * sine(Double.pi * tau / accelSeconds) }
        let stopPeak = peakG * accelSeconds / stopSeconds
        let s = tau - accelSeconds
        if s < stopSeconds { return -stopPeak * sine(Double.pi * s / stopSeconds) }
        let r = s - stopSeconds
        guard rebound > 0 else { return 0 }
        let size = (peakG < 0 ? -1 : 1) * rebound * max(abs(peakG), abs(stopPeak))
        if r < stopSeconds { return size * sine(Double.pi * r / stopSeconds) }
        let back = r - stopSeconds
        if back < 4 * stopSeconds { return -size / 4 * sine(Double.pi * back / (4 * stopSeconds)) }
        return 0
    }

    /// The unit-radius circle's acceleration (along its axis, across it) `tau` seconds into
    /// `turns` turns over `seconds`: position (cos θ, aspect·sin θ) with θ(s) = 2π·turns·(s − sin(2πs)/2π),
    /// s = tau/seconds, so the board starts and ends at rest and is fastest halfway round;
    /// acceleration = (−sin θ·θ″ − cos θ·θ′², aspect·(cos θ·θ″ − sin θ·θ′²)). Shaped on the Wiimote
    /// recordings' circles (UCR "AllGestureWiimote", Dau et al. 2019, from Guna et al., TSP 2012;
    /// 100 left and right circles of the even-numbered half): 1.33 s long (median; p10 0.96 s,
    /// p90 2.14 s), in the plane facing the screen (the plane's normal is 0.96 along the board's
    /// forward axis, median), the linear acceleration peaking at 1.83 g (p10 1.34 g, p90 2.98 g) and its
    /// direction turning through 1.36 turns (p10 0.49, p90 1.83) rather than reversing; drawn
    /// by hand they are ellipses, the acceleration's spread across the main axis 0.74 × its
    /// spread along it (singular values; p10 0.58, p90 0.90).
    static func circleAccel(_ tau: Double, turns: Double, aspect: Double, seconds: Double) -> (Double, Double) {
        let s = min(max(tau / seconds, 0), 1)
        let c = 2 * Double.pi * turns
        let w = 2 * Double.pi
        let theta = c * (s - sine(w * s) / w)
        let rate = c / seconds * (1 - cosine(w * s))
        let accel = c * w / (seconds * seconds) * sine(w * s)
        let sinT = sine(theta), cosT = cosine(theta)
        return (-sinT * accel - cosT * rate * rate, aspect * (cosT * accel - sinT * rate * rate))
    }

    /// The largest acceleration of a unit-radius `circleAccel` (sampled finely; the magnitude is
    /// smooth and symmetric about the middle).
    static func circleUnitPeak(turns: Double, aspect: Double, seconds: Double) -> Double {
        var peak = 0.0
        for i in 0...2000 {
            let (a, b) = circleAccel(Double(i) / 2000 * seconds, turns: turns, aspect: aspect, seconds: seconds)
            peak = max(peak, (a * a + b * b).squareRoot())
        }
        return peak > 0 ? peak : 1
    }

    /// Linear acceleration (g) along the tap's axis, `tau` seconds into a tap. Shaped on BROAD's
    /// tapping trial (Laidig, Caruso, Cereatti, Seel, *Data* 6(7):72, 2021, CC BY 4.0; trial 24,
    /// 28 taps on a hand-held IMU, as converted to 100 Hz after a 40 Hz low-pass): a spike of
    /// 1.85 g median (p90 4.2 g, largest 7.1 g), 19 ms wide at half height (p10 15 ms, p90
    /// 33 ms), then a rebound the other way lasting about 80 ms and a swing back of about 0.35 ×
    /// the rebound over the next 100 ms (median profile −1.74 g, +0.72 g, −0.25 g). The rebound
    /// grows with the spike up to about 1.2 g (taps of 5–7 g rebound by 0.8–1.1 g), lasting
    /// longer beyond that; it is sized so the board ends at rest (∫a dt = 0).
    static func tapAccel(_ tau: Double, peakG: Double, spikeSeconds: Double) -> Double {
        let swingSeconds = 0.1, swingShare = 0.35, largestRebound = 1.2
        // Half-sine areas: peak·d = rebound·r − share·rebound·s.
        let area = abs(peakG) * spikeSeconds
        var reboundSeconds = 0.08
        var rebound = area / (reboundSeconds - swingShare * swingSeconds)
        if rebound > largestRebound {
            rebound = largestRebound
            reboundSeconds = area / largestRebound + swingShare * swingSeconds
        }
        if peakG < 0 { rebound = -rebound }
        if tau < 0 { return 0 }
        if tau < spikeSeconds { return peakG * sine(Double.pi * tau / spikeSeconds) }
        let r = tau - spikeSeconds
        if r < reboundSeconds { return -rebound * sine(Double.pi * r / reboundSeconds) }
        let w = r - reboundSeconds
        if w < swingSeconds { return swingShare * rebound * sine(Double.pi * w / swingSeconds) }
        return 0
    }

    /// World-frame linear acceleration (g), `tau` seconds into a walk of `seconds`. Shaped on UCI
    /// HAPT (Reyes-Ortiz, Oneto, Samà, Parra, Anguita, *Neurocomputing* 171:754–767, 2016,
    /// CC BY 4.0: a phone at the waist, accelerometer at 50 Hz; experiments 41–45, gravity taken
    /// out with a 0.3 Hz low-pass):
    /// - walking, 10 bouts, 175 s: 1.92 steps/s (1.86–2.05), vertical heel-strike peaks 0.67 g
    ///   median, p90 0.86 g, largest 1.02 g; troughs −0.44 g; peaks 100 ms wide at half height;
    /// - upstairs, 15 bouts, 175 s: 1.82 steps/s (1.47–1.95), peaks 0.71 g, p90 1.02 g;
    /// - downstairs, 15 bouts, 165 s: 1.89 steps/s (1.56–2.18), peaks 0.93 g, p90 1.09 g,
    ///   largest 1.30 g; troughs −0.51 g; 150 ms wide;
    /// - horizontal: 0.21–0.25 g RMS, p95 0.41–0.49 g, at the step frequency and half of it.
    /// The vertical is the mean step cycle's first four harmonics, all peaking at heel strike
    /// (relative sizes 1, 0.35, 0.10, 0.05, as downstairs: the trough is −0.47 × the peak, the
    /// peak 150 ms wide at half height), scaled so a median step peaks at `bounceG`; steps vary by
    /// ±25 % (the spread of the measured peaks); sideways and fore-aft sway of 0.3 × `bounceG`
    /// at half the step frequency and at it; the first and last step fade in and out.
    static func walkAccel(_ tau: Double, bounceG: Double, stepHz: Double, seconds: Double) -> Vector3 {
        let theta = 2 * Double.pi * stepHz * tau
        let cycle = cosine(theta) + 0.35 * cosine(2 * theta) + 0.10 * cosine(3 * theta) + 0.05 * cosine(4 * theta)
        let vertical = cycle / 1.5 * (1 + 0.25 * sine(theta / 2.7))
        let foreAft = 0.3 * sine(theta)
        let sideways = 0.3 * sine(theta / 2)
        let edge = min(1, max(0, min(tau, seconds - tau) * stepHz))
        let fade = (1 - cosine(Double.pi * edge)) / 2
        let scale = bounceG * fade
        return Vector3(sideways * scale, foreAft * scale, vertical * scale)
    }

    /// World-frame linear acceleration (g) of a put-down. The downward push is sized so the
    /// impact exactly stops the board: ∫dip = ∫impact.
    static func putDownAccel(_ tau: Double, impactG: Double) -> Vector3 {
        let dipSeconds = 0.3, impactAt = 0.4, impactSeconds = 0.02
        let dip = impactG * impactSeconds / dipSeconds
        if tau < dipSeconds { return Vector3(0, 0, -dip * sine(Double.pi * tau / dipSeconds)) }
        if tau >= impactAt && tau < impactAt + impactSeconds {
            return Vector3(0, 0, impactG * sine(Double.pi * (tau - impactAt) / impactSeconds))
        }
        return .zero
    }
}

/// A script or trace that cannot be used: which problem, and where (the segment, the JSON path or
/// the trace line) with the value at fault. A program words it for people.
public struct MotionScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What a segment's value must be, for a value that is not.
    public enum Rule: Sendable, Equatable {
        /// More than 0.
        case positive
        /// A finite number (not NaN or infinite).
        case finite
        /// 0 or more.
        case nonNegative
        /// A finite number, 0 or more.
        case finiteNonNegative
        /// More than 0 and at most 1.
        case aboveZeroUpToOne
        /// More than 0 and less than 90.
        case aboveZeroBelow90
    }

    /// What is wrong with the script or trace.
    public enum Problem: Sendable, Equatable {
        /// The `segment`-th segment (1 is the first) of a JSON script does not have exactly one of
        /// the segment kinds (`kinds`, the JSON keys) as its key.
        case segmentKey(segment: Int, kinds: [String])
        /// The `segment`-th segment's `key` (`seconds`, `frequencyHz`, …) breaks `rule`; `kind` is
        /// the segment's kind (`shake`, `move`, …) where the words name it, `value` the number
        /// given where they quote it.
        case outOfRange(segment: Int, kind: String?, key: String, value: Double?, rule: Rule)
        /// The `segment`-th segment's vector `key` (`axis`) is [0, 0, 0].
        case zeroVector(segment: Int, kind: String, key: String)
        /// The `segment`-th segment's vector `key` (`across`, `pivot`) is [0, 0, 0] or along its axis.
        case alongAxis(segment: Int, kind: String, key: String)
        /// A `move` segment's ramps, `accelSeconds` and `stopSeconds`, must both be more than 0:
        /// `givenAccel` and `givenStop` are the numbers given (one 0 or less, or not a finite
        /// number, so no span of time).
        case moveRamps(segment: Int, givenAccel: Double, givenStop: Double)
        /// A `move` segment that lasts `given`, shorter than the move it describes (`least`).
        case moveTooShort(segment: Int, least: Duration, given: Duration)
        /// A JSON key missing at `path` (a JSON path such as `.segments[0].shake`; empty at the top level).
        case missingKey(key: String, path: String)
        /// A value of the wrong type at `path`; `detail` is the JSON decoder's own report.
        case wrongType(path: String, detail: String)
        /// Input that is not JSON at `path`; `detail` is the decoder's report, `underlying` the
        /// parser's when it gives one.
        case invalidJSON(path: String, detail: String, underlying: String?)
        /// Well-formed JSON of the wrong shape at `path` (`DecodedValueProblem`).
        case badShape(path: String, DecodedValueProblem)
        /// A decoding failure of another kind; `detail` is the decoder's error as it describes itself.
        case undecodable(detail: String)
        /// A trace's `line` (1 is the first) whose field count is neither 4 nor 7.
        case traceFieldCount(line: Int, found: Int)
        /// A trace's `line` whose `field`-th field (1 is the first) is not a finite number; `text`
        /// is the field as written, at most 80 characters (a longer one cut to 79 and `…`).
        case traceNotANumber(line: Int, field: Int, text: String)
        /// A trace's `line` whose time is earlier than the line before it.
        case traceTimeBackwards(line: Int, time: Double, previous: Double)
        /// A trace without a single sample.
        case traceEmpty
    }

    /// What is wrong.
    public var problem: Problem
    /// True when the problem was found reading a script's JSON form (`MotionScript(jsonData:)`).
    public var inJSON: Bool
    /// An error for `problem`, found in a script's JSON form when `inJSON`.
    public init(_ problem: Problem, inJSON: Bool = false) { self.problem = problem; self.inJSON = inJSON }
    /// The problem and its fields, for a log: `MotionScriptError(traceEmpty)`. A program words it for people.
    public var description: String { "MotionScriptError(\(problem)\(inJSON ? ", json" : ""))" }
}
