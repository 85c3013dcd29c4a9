import TiltboardCore

extension MotionScript {
    /// Names accepted by `builtIn(named:)`.
    public static let builtInNames = ["flat", "demo", "six-faces", "shake", "swing", "slow-tilt", "tap", "put-down",
                                      "walk", "stairs", "stairs-up", "tilt-left", "tilt-forward",
                                      "lift-shake", "shake-slow", "shake-fast", "move", "circle", "push"]

    /// A ready-made script, or nil for an unknown name (see `builtInNames`).
    public static func builtIn(named name: String) -> MotionScript? {
        guard let segments = builtInSegments(name) else { return nil }
        return try? MotionScript(segments: segments)
    }

    private static func pose(_ pitch: Double, _ roll: Double) -> TiltAngles {
        TiltAngles(pitchDeg: pitch, rollDeg: roll)
    }

    /// `lift-shake` with the front turned down by `turnDeg` instead of 90° (the recordings' turns:
    /// 48° median, p10 7°, p90 98°); the shake begins 1.8 s in.
    package static func liftShake(turnDeg: Double) throws -> MotionScript {
        try MotionScript(segments: liftShakeSegments(turnDeg: turnDeg))
    }

    private static func liftShakeSegments(turnDeg: Double) -> [Segment] {
        [.hold(pose(0, 0), seconds: 1),
         .move(axis: Vector3(0, 0, 1), peakG: 0.66, accelSeconds: 0.2, stopSeconds: 0.2, rebound: 0, seconds: 0.4),
         .rotate(to: pose(turnDeg, 0), seconds: 0.4),
         .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(0, -1, 0), frequencyHz: 3, peakG: 3, swingDeg: 18.5,
                     seconds: 7.0 / 6),
         .hold(pose(turnDeg, 0), seconds: 1)]
    }

    /// `segment` played flat, after 0.5 s and before `rest` seconds at rest.
    private static func flatAround(_ segment: Segment, rest: Double) -> [Segment] {
        [.hold(pose(0, 0), seconds: 0.5), segment, .hold(pose(0, 0), seconds: rest)]
    }

    /// Flat for 1 s, then 7 half-cycles (the recordings' median) along x swung from the wrist by
    /// 18.5°, then 1.5 s still.
    private static func flatShake(frequencyHz: Double, peakG: Double) -> [Segment] {
        [.hold(pose(0, 0), seconds: 1),
         .wristShake(axis: Vector3(1, 0, 0), pivot: Vector3(0, -1, 0), frequencyHz: frequencyHz, peakG: peakG,
                     swingDeg: 18.5, seconds: 3.5 / frequencyHz),
         .hold(pose(0, 0), seconds: 1.5)]
    }

    private static func builtInSegments(_ name: String) -> [Segment]? {
        let flat = pose(0, 0)
        switch name {
        case "flat":
            return []
        case "demo":
            // Left, right, forward, back (30° each), flat, then a hard 4 Hz shake: 12.5 s.
            return [.hold(flat, seconds: 1),
                    .rotate(to: pose(0, -30), seconds: 1), .hold(pose(0, -30), seconds: 0.5),
                    .rotate(to: pose(0, 30), seconds: 1.5), .hold(pose(0, 30), seconds: 0.5),
                    .rotate(to: pose(30, 0), seconds: 1.5), .hold(pose(30, 0), seconds: 0.5),
                    .rotate(to: pose(-30, 0), seconds: 1.5), .hold(pose(-30, 0), seconds: 0.5),
                    .rotate(to: flat, seconds: 1), .hold(flat, seconds: 1),
                    .shake(axis: Vector3(1, 0, 0), frequencyHz: 4, peakG: 2.5, seconds: 1.5),
                    .hold(flat, seconds: 0.5)]
        case "six-faces":
            // +Z, −Z, +X, −X, +Y, −Y up in turn, 3 s still each, 2 s turns: 28 s.
            let faces = [flat, pose(180, 0), pose(0, -90), pose(0, 90), pose(-90, 0), pose(90, 0)]
            var segments: [Segment] = [.hold(faces[0], seconds: 3)]
            for face in faces.dropFirst() {
                segments.append(.rotate(to: face, seconds: 2))
                segments.append(.hold(face, seconds: 3))
            }
            return segments
        case "shake":
            return [.hold(flat, seconds: 1),
                    .shake(axis: Vector3(1, 0, 0), frequencyHz: 4, peakG: 2, seconds: 1),
                    .hold(flat, seconds: 1)]
        case "swing":
            // Vigorous back-and-forth by hand, as in BROAD's fast-translation trial (Laidig et al.,
            // Data 6(7):72, 2021, CC BY 4.0; trial 15, three bouts of 4.5-48 s): 1.1-1.4 back-and-forth
            // cycles a second, linear acceleration along the main axis peaking at 1.2-2.1 g (median
            // per bout; largest 2.7-3.9 g), 0.5-1.4 g (p95) across it. 1.3 Hz, 1.8 g, 4 s.
            return [.hold(flat, seconds: 1),
                    .shake(axis: Vector3(1, 0.4, 0), frequencyHz: 1.3, peakG: 1.8, seconds: 4),
                    .hold(flat, seconds: 1)]
        case "slow-tilt":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(90, 0), seconds: 4),
                    .hold(pose(90, 0), seconds: 0.5), .rotate(to: flat, seconds: 4), .hold(flat, seconds: 0.5)]
        case "tap":
            // A tap from above on a hand-held board: BROAD's tapping trial (trial 24) has downward
            // spikes of 1.85 g median, p90 4.2 g, 15-33 ms wide at half height, each followed by a
            // rebound (see MotionScript.tapAccel). 3 g, 20 ms (13 ms at half height).
            return [.hold(flat, seconds: 0.5),
                    .tap(axis: Vector3(0, 0, -1), peakG: 3, spikeSeconds: 0.02, seconds: 0.5),
                    .hold(flat, seconds: 0.5)]
        case "put-down":
            return [.hold(flat, seconds: 0.5), .putDown(impactG: 1.5, seconds: 1), .hold(flat, seconds: 0.5)]
        case "walk":
            // UCI HAPT walking at the waist (Reyes-Ortiz et al., Neurocomputing 171, 2016, CC BY
            // 4.0; 10 bouts, 175 s): 1.92 steps/s median, heel-strike peaks 0.67 g median, p90
            // 0.86 g (see MotionScript.walkAccel).
            return [.hold(flat, seconds: 0.5), .walk(bounceG: 0.67, stepHz: 1.92, seconds: 8), .hold(flat, seconds: 0.5)]
        case "stairs":
            // Down a flight of stairs, the hardest of HAPT's activities for a shake detector
            // (15 bouts, 165 s): 1.89 steps/s, peaks 0.93 g median, p90 1.09 g, largest 1.30 g.
            return [.hold(flat, seconds: 0.5), .walk(bounceG: 0.93, stepHz: 1.89, seconds: 8), .hold(flat, seconds: 0.5)]
        case "stairs-up":
            // Up a flight of stairs, HAPT (15 bouts, 175 s): 1.82 steps/s, peaks 0.71 g median, p90 1.02 g.
            return [.hold(flat, seconds: 0.5), .walk(bounceG: 0.71, stepHz: 1.82, seconds: 8), .hold(flat, seconds: 0.5)]
        case "tilt-left":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(0, -30), seconds: 1), .hold(pose(0, -30), seconds: 2)]
        case "tilt-forward":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(30, 0), seconds: 1), .hold(pose(30, 0), seconds: 2)]
        // The rest are shaped on the Wiimote gesture recordings (UCR "AllGestureWiimote", Dau et
        // al., IEEE/CAA J. Autom. Sinica 6(6), 2019, from Guna, Humar and Pogačnik, TSP 2012: the
        // even-numbered half, 500 gestures at 100 Hz; figures are medians with p10–p90).
        case "lift-shake":
            // Picked up, turned and shaken. Pick-ups rise with 0.66 g (p10 0.31, p90 0.93) for
            // 0.21 s; between the still start and the shake gravity turns by 48° (p10 7°, p90
            // 98°; 60 % of shakes turn ≥ 45°), and the first strong half-cycle comes 0.07 s after
            // the gesture starts (p90 0.64 s). Shakes run at 3.3 Hz (p10 2.3, p90 3.9; from the
            // half-cycles' spacing) with half-cycles of 3.3 g (p10 2.2, p90 4.7) along the
            // board's left-right axis (45 of 50 shakes; the other 5 up-down), 6.5 of them over
            // 1 g (p10 5, p90 10), swung from the wrist by about 18.5° (see MotionScript.wristSwing).
            // Here: a 0.66 g lift in 0.4 s, a 90° turn to the front pointing down in 0.4 s (0.8 s
            // in all, the p90 lead-in), then 7 half-cycles at 3 Hz, 3 g, along x; 4 s.
            return liftShakeSegments(turnDeg: 90)
        case "shake-slow":
            // The slow, gentle end of the recordings' shakes: 2.5 Hz (p10 2.3 Hz), half-cycles of
            // 2.2 g (p10), 7 of them (median), along x, swung by 18.5°, flat; 3.9 s.
            return flatShake(frequencyHz: 2.5, peakG: 2.2)
        case "shake-fast":
            // The fast end: 4.5 Hz (above the p90 3.9 Hz), half-cycles of 4 g (p90 4.7 g), 7 of
            // them, along x, swung by 18.5° (the gyro peaks at 523 °/s), flat; 3.3 s.
            return flatShake(frequencyHz: 4.5, peakG: 4)
        case "move":
            // One move to the right, as the recordings' median single move: a 1.89 g push for
            // 0.25 s, a stop as long, and the rebound of the moves that have one (23 % of them),
            // 0.21 × the main lobes (see MotionScript.moveAccel); 3 s.
            return flatAround(.move(axis: Vector3(1, 0, 0), peakG: 1.89, accelSeconds: 0.25, stopSeconds: 0.25,
                                    rebound: 0.21, seconds: 1.75), rest: 0.75)
        case "circle":
            // One circle in the plane facing the screen (x–z), 1.33 s, peaking at 1.83 g, squashed
            // to 0.74, as the recordings' median circle; its acceleration turns through 1.5 turns
            // (measured 1.36, p10 0.49, p90 1.83; see MotionScript.circleAccel); 2.83 s.
            return flatAround(.circle(axis: Vector3(1, 0, 0), across: Vector3(0, 0, 1), turns: 1, peakG: 1.83,
                                      aspect: 0.74, seconds: 1.33), rest: 1)
        case "push":
            // A push toward the screen (+y) that ends in a sharp stop. The recordings' 92 pushes
            // toward and away from the screen push with 1.28 g (p10 0.79, p90 2.40) for 0.28 s
            // and stop with 1.48 g (p10 0.67, p90 2.53) over 0.24 s between zero crossings (p10
            // 0.15 s; 0.13 s at half height, p10 0.08 s); 29 % rebound, by 0.31 × the larger
            // lobe (p10 0.21, p90 0.61). Here the sharp end of that: 1.3 g for 0.28 s, a stop of
            // 0.15 s (so 2.43 g, near the p90) and the median rebound; 2.7 s.
            return flatAround(.move(axis: Vector3(0, 1, 0), peakG: 1.3, accelSeconds: 0.28, stopSeconds: 0.15,
                                    rebound: 0.31, seconds: 1.2), rest: 1)
        default:
            return nil
        }
    }
}
