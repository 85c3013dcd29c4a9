import TiltboardCore

extension MotionScript {
    /// Names accepted by `builtIn(named:)`.
    public static let builtInNames = ["flat", "demo", "six-faces", "shake", "slow-tilt", "tap", "put-down",
                                      "walk", "tilt-left", "tilt-forward"]

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
        case "slow-tilt":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(90, 0), seconds: 4),
                    .hold(pose(90, 0), seconds: 0.5), .rotate(to: flat, seconds: 4), .hold(flat, seconds: 0.5)]
        case "tap":
            return [.hold(flat, seconds: 0.5),
                    .tap(axis: .unitZ, peakG: 3, spikeSeconds: 0.015, seconds: 0.5),
                    .hold(flat, seconds: 0.5)]
        case "put-down":
            return [.hold(flat, seconds: 0.5), .putDown(impactG: 1.5, seconds: 1), .hold(flat, seconds: 0.5)]
        case "walk":
            return [.hold(flat, seconds: 0.5), .walk(bounceG: 0.3, stepHz: 2, seconds: 5), .hold(flat, seconds: 0.5)]
        case "tilt-left":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(0, -30), seconds: 1), .hold(pose(0, -30), seconds: 2)]
        case "tilt-forward":
            return [.hold(flat, seconds: 0.5), .rotate(to: pose(30, 0), seconds: 1), .hold(pose(30, 0), seconds: 2)]
        default:
            return nil
        }
    }
}
