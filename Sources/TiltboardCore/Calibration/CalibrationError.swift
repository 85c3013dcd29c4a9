/// Why a calibration step was refused; each message says what to do next.
public enum CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The board moved during a capture.
    case notStill(StillnessFailure)
    /// No still stretch long enough before the timeout, which ran out after the given span.
    case captureTimedOut(after: Duration, lastFailure: StillnessFailure?)
    /// The mean reading is not clearly along one axis.
    case ambiguousOrientation(meanG: Vector3)
    /// The board lies on a different face from the one asked for.
    case wrongFace(expected: BoardFace, measured: BoardFace)
    /// This face was captured already.
    case repeatedFace(BoardFace)
    /// A fit was asked for before all six faces were captured.
    case missingFaces([BoardFace])
    /// The corrected faces are too far from ±1 g along their axes.
    case residualTooLarge(rmsMg: Double, maxMg: Double, limitMg: Double)
    /// A fitted sensitivity is outside the plausible range.
    case scaleOutOfRange(axis: Int, scale: Double, range: ClosedRange<Double>)
    /// A fitted zero-g offset is implausibly large.
    case offsetOutOfRange(axis: Int, offsetG: Double, limitG: Double)
    /// A fitted cross-axis term is implausibly large.
    case crossAxisOutOfRange(row: Int, column: Int, value: Double, limit: Double)
    /// The faces do not determine a solution (e.g. identical readings).
    case singularFit

    public var description: String {
        switch self {
        case let .notStill(f):
            return "capture rejected: \(f)"
        case let .captureTimedOut(timeout, last):
            let seconds = timeout.inSeconds
            let why = last.map { " (last problem: \($0))" } ?? ""
            return "the board was not still for long enough within \(CalibrationText.fixed(seconds, 0)) s\(why); "
                + "put it on a steady surface and try again"
        case let .ambiguousOrientation(g):
            return "orientation unclear: measured (\(CalibrationText.fixed(g.x, 3)), \(CalibrationText.fixed(g.y, 3)), "
                + "\(CalibrationText.fixed(g.z, 3))) g; lay the board squarely on one face"
        case let .wrongFace(expected, measured):
            return "the board lies with \(measured.rawValue) up, expected \(expected.rawValue) up; "
                + "turn it so that \(expected.rawValue) points up"
        case let .repeatedFace(face):
            return "face \(face.rawValue) was captured already; turn the board to a face not yet captured"
        case let .missingFaces(faces):
            return "faces still to capture: " + faces.map(\.rawValue).joined(separator: ", ")
        case let .residualTooLarge(rms, maxMg, limit):
            return "calibration fit is poor: residual \(CalibrationText.fixed(rms, 1)) mg rms, worst face "
                + "\(CalibrationText.fixed(maxMg, 1)) mg (limit \(CalibrationText.fixed(limit, 1)) mg); lay each face squarely "
                + "on a level surface and keep it still, then capture again"
        case let .scaleOutOfRange(axis, scale, range):
            return "\(CalibrationText.axis(axis)) sensitivity came out \(CalibrationText.fixed(scale, 3)) × nominal, outside "
                + "\(CalibrationText.fixed(range.lowerBound, 2))…\(CalibrationText.fixed(range.upperBound, 2)); check the range "
                + "setting and that each face was labelled correctly"
        case let .offsetOutOfRange(axis, offset, limit):
            return "\(CalibrationText.axis(axis)) zero-g offset came out \(CalibrationText.fixed(offset * 1000, 0)) mg, beyond "
                + "±\(CalibrationText.fixed(limit * 1000, 0)) mg; check the sensor and its mounting, then capture again"
        case let .crossAxisOutOfRange(row, column, value, limit):
            return "cross-axis term \(CalibrationText.axis(row))\(CalibrationText.axis(column)) came out \(CalibrationText.fixed(value, 3)), beyond "
                + "±\(CalibrationText.fixed(limit, 3)); lay each face squarely or fit without cross-axis terms"
        case .singularFit:
            return "the six captures do not determine a calibration; capture each face with a different side up"
        }
    }
}
