import TiltboardSimulator

// The sentences for TiltboardSimulator's errors: a motion script or a trace that cannot be used.

extension ErrorWording {
    /// A script or trace that cannot be used: `motion script: segment 2 (move): …`, `trace line 3: …`.
    package static func motionScript(_ error: MotionScriptError) -> String {
        let words = motionScriptProblem(error.problem)
        return error.inJSON ? "motion script: " + words : words
    }

    /// A span as the seconds a script writes: `0.8`.
    static func seconds(_ span: Duration) -> Double {
        Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18
    }

    /// What is wrong with a script or trace, and where.
    package static func motionScriptProblem(_ problem: MotionScriptError.Problem) -> String {
        func segment(_ number: Int, _ kind: String?) -> String {
            kind.map { "segment \(number) (\($0))" } ?? "segment \(number)"
        }
        let seeDocs = " (see MotionScript's documentation for the JSON form)"
        func at(_ path: String) -> String { path.isEmpty ? "top level" : path }
        switch problem {
        case let .segmentKey(number, kinds):
            return "segment \(number): expected exactly one of \(kinds.joined(separator: ", ")) as its key"
        case let .outOfRange(number, kind, key, value, rule):
            let must: String
            switch rule {
            case .positive: must = "must be > 0"
            case .finite: must = "must be a number"
            case .nonNegative: must = "must be ≥ 0"
            case .finiteNonNegative: must = "must be a finite number ≥ 0"
            case .aboveZeroUpToOne: must = "must be more than 0 and at most 1"
            case .aboveZeroBelow90: must = "must be more than 0 and less than 90"
            }
            return "\(segment(number, kind)): \(key) \(must)" + (value.map { ", got \($0)" } ?? "")
        case let .zeroVector(number, kind, key):
            return "\(segment(number, kind)): \(key) must not be [0, 0, 0]"
        case let .alongAxis(number, kind, key):
            return "\(segment(number, kind)): \(key) must not be [0, 0, 0] or along axis"
        case let .moveRamps(number, accelSeconds, stopSeconds):
            return "\(segment(number, "move")): accelSeconds and stopSeconds must be > 0, got \(accelSeconds) and \(stopSeconds)"
        case let .moveTooShort(number, least, given):
            return "\(segment(number, "move")): seconds must cover the move, at least \(seconds(least)), got \(seconds(given))"
        case let .missingKey(key, path):
            return "missing \"\(key)\" at \(at(path))" + seeDocs
        case let .wrongType(path, detail):
            return "wrong type at \(at(path)): \(detail)" + seeDocs
        case let .invalidJSON(path, detail, underlying):
            return "invalid JSON at \(at(path)): \(detail)" + (underlying.map { " (\($0))" } ?? "") + seeDocs
        case let .badShape(path, problem):
            return "invalid JSON at \(at(path)): \(decodedValue(problem))" + seeDocs
        case let .undecodable(detail):
            return "unreadable: \(detail)" + seeDocs
        case let .traceFieldCount(line, found):
            return "trace line \(line): expected 4 fields (t,ax,ay,az) or 7 (t,ax,ay,az,gx,gy,gz), found \(found)"
        case let .traceNotANumber(line, field, text):
            return "trace line \(line): field \(field) \"\(text)\" is not a number"
        case let .traceTimeBackwards(line, time, previous):
            return "trace line \(line): time \(time) is earlier than the previous line's \(previous); sort the trace by time"
        case .traceEmpty:
            return "trace: no samples found; expected lines of t,ax,ay,az[,gx,gy,gz]"
        }
    }
}
