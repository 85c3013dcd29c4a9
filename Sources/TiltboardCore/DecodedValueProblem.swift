/// Why a value in well-formed JSON could not be decoded: the `underlyingError` of the
/// `DecodingError.dataCorrupted` that `Vector3`, `Matrix3` and `ChipKind` throw, so that the
/// file's reader can name the key at fault and the program word it.
public enum DecodedValueProblem: Error, Sendable, Equatable {
    /// A vector that is not exactly three numbers.
    case notThreeNumbers
    /// A matrix that is not three rows of three numbers.
    case notThreeRowsOfThree
    /// A name of `kind` (`chip`) that is none of `known`.
    case unknownName(kind: String, name: String, known: [String])

    /// The `DecodingError` that carries this problem at `codingPath`.
    package func decodingError(at codingPath: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(self)", underlyingError: self))
    }
}
