import Tiltboard
import TiltboardCore
import TiltboardLinux

// The sentences for TiltboardCore's errors (calibration, stillness, haptic effects): each kind
// and its fields, said to a person with what to do next.

/// Why a calibration capture did not count as still, said to a person (not an error: the capture
/// starts again).
package func describe(_ failure: StillnessFailure) -> String { ErrorWording.stillness(failure) }

extension ErrorWording {
    /// The sentence for one of TiltboardCore's errors (and the calibration errors that carry
    /// one), or nil when `error` is none of them.
    package static func core(_ error: Error) -> String? {
        switch error {
        case let error as CalibrationError: return calibration(error)
        case let error as HapticEffectError: return hapticEffect(error)
        case let error as FaceTimeout: return faceTimeout(error)
        case let error as DecodedValueProblem: return decodedValue(error)
        default: return nil
        }
    }

    private static func fixed(_ x: Double, _ decimals: Int) -> String { CalibrationText.fixed(x, decimals) }
    private static func axis(_ index: Int) -> String { CalibrationText.axis(index) }

    /// A JSON value of the wrong shape: what was expected.
    package static func decodedValue(_ problem: DecodedValueProblem) -> String {
        switch problem {
        case .notThreeNumbers: return "expected exactly 3 numbers"
        case .notThreeRowsOfThree: return "expected 3 rows of 3 numbers"
        case let .unknownName(kind, name, known):
            return "unknown \(kind) \"\(name)\" (known: \(known.map { "\"\($0)\"" }.joined(separator: ", ")))"
        }
    }

    /// Why a calibration step was refused, and what to do next.
    package static func calibration(_ error: CalibrationError) -> String {
        switch error {
        case let .notStill(f):
            return "capture rejected: \(stillness(f))"
        case let .captureTimedOut(seconds, last):
            let why = last.map { " (last problem: \(stillness($0)))" } ?? ""
            return "the board was not still for long enough within \(fixed(seconds.inSeconds, 0)) s\(why); "
                + "put it on a steady surface and try again"
        case let .ambiguousOrientation(g):
            return "orientation unclear: measured (\(fixed(g.x, 3)), \(fixed(g.y, 3)), "
                + "\(fixed(g.z, 3))) g; lay the board squarely on one face"
        case let .wrongFace(expected, measured):
            return "the board lies with \(measured.rawValue) up, expected \(expected.rawValue) up; "
                + "turn it so that \(expected.rawValue) points up"
        case let .repeatedFace(face):
            return "face \(face.rawValue) was captured already; turn the board to a face not yet captured"
        case let .missingFaces(faces):
            return "faces still to capture: " + faces.map(\.rawValue).joined(separator: ", ")
        case let .residualTooLarge(rms, maxMg, limit):
            return "calibration fit is poor: residual \(fixed(rms, 1)) mg rms, worst face "
                + "\(fixed(maxMg, 1)) mg (limit \(fixed(limit, 1)) mg); lay each face squarely "
                + "on a level surface and keep it still, then capture again"
        case let .scaleOutOfRange(index, scale, range):
            return "\(axis(index)) sensitivity came out \(fixed(scale, 3)) × nominal, outside "
                + "\(fixed(range.lowerBound, 2))…\(fixed(range.upperBound, 2)); check the range "
                + "setting and that each face was labelled correctly"
        case let .offsetOutOfRange(index, offset, limit):
            return "\(axis(index)) zero-g offset came out \(fixed(offset * 1000, 0)) mg, beyond "
                + "±\(fixed(limit * 1000, 0)) mg; check the sensor and its mounting, then capture again"
        case let .crossAxisOutOfRange(row, column, value, limit):
            return "cross-axis term \(axis(row))\(axis(column)) came out \(fixed(value, 3)), beyond "
                + "±\(fixed(limit, 3)); lay each face squarely or fit without cross-axis terms"
        case .singularFit:
            return "the six captures do not determine a calibration; capture each face with a different side up"
        }
    }

    /// Why a capture did not count as still, and what to do about it.
    package static func stillness(_ failure: StillnessFailure) -> String {
        switch failure {
        case let .tooFewSamples(count, needed):
            return "only \(count) samples captured, \(needed) needed; keep the sensor running longer"
        case let .accelNoise(index, sd, limit):
            return "board moved: \(axis(index)) acceleration varied by \(fixed(sd * 1000, 1)) mg rms "
                + "(limit \(fixed(limit * 1000, 1)) mg); hold the board still"
        case let .accelSpan(index, span, limit):
            return "board was bumped: \(axis(index)) acceleration spanned \(fixed(span * 1000, 1)) mg "
                + "(limit \(fixed(limit * 1000, 1)) mg); hold the board still and avoid touching it"
        case let .gyroNoise(index, sd, limit):
            return "board rotated: \(axis(index)) rate varied by \(fixed(sd, 2)) °/s rms "
                + "(limit \(fixed(limit, 2)) °/s); hold the board still"
        case let .gravityMagnitude(g, tol):
            return "measured \(fixed(g, 3)) g instead of about 1 g (tolerance ±\(fixed(tol, 2)) g); "
                + "check the range setting and keep the board still"
        case let .gap(seconds):
            return "no sample for \(fixed(seconds.inSeconds, 2)) s (the sensor was lost)"
        }
    }

    /// The six-face procedure's wait for the next face ran out: the last problem, the faces
    /// still to do and what to do.
    package static func faceTimeout(_ error: FaceTimeout) -> String {
        let faces = error.remaining.map(\.rawValue).joined(separator: ", ")
        let why = error.lastFailure.map { " (last problem: \(stillness($0)))" } ?? ""
        let seconds = Double(error.timeout.components.seconds) + Double(error.timeout.components.attoseconds) / 1e18
        return "no new face captured within \(Int(seconds.rounded())) s\(why); still to do: \(faces). "
            + "Lay the board squarely with one of those faces up and keep it still"
    }

    /// A haptic effect's name, pattern or strength that cannot be played, and what is accepted.
    package static func hapticEffect(_ error: HapticEffectError) -> String {
        func name(_ field: HapticEffectError.Field) -> String {
            switch field {
            case .pulseLength: return "pulse length"
            case let .onTime(n): return "on-time #\(n)"
            case let .offTime(n): return "off-time #\(n)"
            }
        }
        switch error.problem {
        case let .unknownName(given):
            return "unknown effect '\(given)': use one of \(HapticEffect.presetNames.joined(separator: ", ")) or pulse:MS (e.g. pulse:150)"
        case let .notANumber(field, text): return "\(name(field)) '\(text)' is not a number of milliseconds"
        case let .notPositive(field, text, zeroAllowed):
            return "\(name(field)) must be \(zeroAllowed ? "0 or more" : "more than 0") milliseconds, not \(text)"
        case let .tooLong(field, text, limit): return "\(name(field)) of \(text) ms is too long: at most \(Int(limit.inMilliseconds)) ms"
        case let .badPulseLength(ms): return "pulse length must be a positive number of milliseconds, not \(ms)"
        case .noTimings: return "a pattern needs at least one on-time, e.g. 100,50,100"
        case let .badTiming(number, ms): return "timing #\(number) must be 0 or more milliseconds, not \(ms)"
        case .noOnTime: return "a pattern needs an on-time longer than 0 ms"
        case let .badRepeatCount(count): return "repeat count must be at least 1 (or omitted to repeat until cancelled), not \(count)"
        case let .badStrength(strength): return "strength must be more than 0 and at most 1, not \(strength)"
        }
    }
}
