import TiltboardCore

extension MotionScript {
    /// Names accepted by `builtIn(named:)`.
    public static let builtInNames = ["flat", "demo", "six-faces", "shake", "swing", "slow-tilt", "tap", "put-down",
                                      "walk", "stairs", "stairs-up", "tilt-left", "tilt-forward"]

    /// A ready-made script, or nil for an unknown name (see `builtInNames`).
    public static func builtIn(named name: String) -> MotionScript? {
        guard let segments = builtInSegments(name) else { return nil }
        return try? MotionScript(segments: segments)
    }

    private static func pose(_ pitch: Double, _ roll: Double) -> TiltAngles {
        TiltAngles(pitchDeg: pitch, rollDeg: roll)
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
        default:
            return nil
        }
    }
}
