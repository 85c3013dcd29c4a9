/// Why a calibration step was refused: the case says what, its fields by how much.
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

    /// The case and its fields, for a log: `CalibrationError.repeatedFace(+Z)`. A program words
    /// it for people (the command-line tool and `serve` share one table of sentences).
    public var description: String {
        switch self {
        case let .notStill(f): return "CalibrationError.notStill(\(f))"
        case let .captureTimedOut(timeout, last):
            return "CalibrationError.captureTimedOut(after: \(timeout), lastFailure: \(last.map { "\($0)" } ?? "nil"))"
        case let .ambiguousOrientation(g): return "CalibrationError.ambiguousOrientation(meanG: \(g))"
        case let .wrongFace(expected, measured): return "CalibrationError.wrongFace(expected: \(expected.rawValue), measured: \(measured.rawValue))"
        case let .repeatedFace(face): return "CalibrationError.repeatedFace(\(face.rawValue))"
        case let .missingFaces(faces): return "CalibrationError.missingFaces(\(faces.map(\.rawValue).joined(separator: " ")))"
        case let .residualTooLarge(rms, maxMg, limit): return "CalibrationError.residualTooLarge(rmsMg: \(rms), maxMg: \(maxMg), limitMg: \(limit))"
        case let .scaleOutOfRange(axis, scale, range): return "CalibrationError.scaleOutOfRange(axis: \(axis), scale: \(scale), range: \(range))"
        case let .offsetOutOfRange(axis, offset, limit): return "CalibrationError.offsetOutOfRange(axis: \(axis), offsetG: \(offset), limitG: \(limit))"
        case let .crossAxisOutOfRange(row, column, value, limit):
            return "CalibrationError.crossAxisOutOfRange(row: \(row), column: \(column), value: \(value), limit: \(limit))"
        case .singularFit: return "CalibrationError.singularFit"
        }
    }
}
