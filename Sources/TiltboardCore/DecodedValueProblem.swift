/// Why a value in well-formed JSON could not be decoded: the `underlyingError` of the
/// `DecodingError.dataCorrupted` that `Vector3`, `Matrix3` and `ChipKind` throw, so that the
/// file's reader can name the key at fault and the program word it.
public enum DecodedValueProblem: CategorizedError, Sendable, Equatable {
    /// A vector that is not exactly three numbers.
    case notThreeNumbers
    /// A matrix that is not three rows of three numbers.
    case notThreeRowsOfThree
    /// A name of `kind` (`chip`) that is none of `known`.
    case unknownName(kind: String, name: String, known: [String])

    /// Bad data in a file.
    public var category: ErrorCategory { .invalidData }

    /// The case and its fields, for a log; the program words it for a person.
    public var description: String {
        switch self {
        case .notThreeNumbers: return "DecodedValueProblem.notThreeNumbers"
        case .notThreeRowsOfThree: return "DecodedValueProblem.notThreeRowsOfThree"
        case let .unknownName(kind, name, known): return "DecodedValueProblem.unknownName(\(kind), \(name), known: \(known))"
        }
    }

    /// The `DecodingError` that carries this problem at `codingPath`.
    package func decodingError(at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: description, underlyingError: self))
    }
}
