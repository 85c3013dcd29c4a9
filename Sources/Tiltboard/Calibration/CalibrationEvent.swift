import TiltboardCore

/// What a calibration procedure reports while it runs, for a progress display.
public enum CalibrationEvent: Sendable, Equatable {
    /// The current capture is still so far; 0…1 of its duration.
    case progress(Double)
    /// The board moved; the current capture starts again.
    case restarted(StillnessFailure)
    /// A face was measured and accepted; `remaining` are still to do.
    case faceCaptured(BoardFace, remaining: [BoardFace])
    /// A still orientation was not used (repeated or ambiguous); the procedure keeps going.
    case faceRejected(CalibrationError)
    /// No sample from the sensor (a bus failure, or a chip that reset), for the error given; the
    /// capture waits for it and starts again when it is back.
    case sensorLost(UnderlyingError)
    /// Samples again; `reconfigured` when the chip had reset and was configured again.
    case sensorBack(reconfigured: Bool)
}

/// The procedure ended because `shouldStop` returned true (a signal); nothing was saved.
public struct CalibrationStopped: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error a stopped procedure throws.
    public init() {}
    /// The structured form for logs; the program words it.
    public var description: String { "CalibrationStopped()" }
}

/// The six-face procedure waited too long for the next face.
public struct FaceTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// The allowed wait, in seconds.
    package var seconds: Double
    /// The allowed wait.
    public var timeout: Duration { Nanoseconds.duration(seconds: seconds) }
    /// Faces not yet captured.
    public var remaining: [BoardFace]
    /// The last reason a capture restarted, if any.
    public var lastFailure: StillnessFailure?

    /// The error for a wait of `seconds` with `remaining` faces still to do.
    package init(seconds: Double, remaining: [BoardFace], lastFailure: StillnessFailure?) {
        self.seconds = seconds; self.remaining = remaining; self.lastFailure = lastFailure
    }

    /// The structured form for logs: the wait, the faces still to do and the last problem.
    public var description: String {
        "FaceTimeout(seconds: \(seconds), remaining: \(remaining.map(\.rawValue)), lastFailure: \(lastFailure.map { "\($0)" } ?? "nil"))"
    }
}
