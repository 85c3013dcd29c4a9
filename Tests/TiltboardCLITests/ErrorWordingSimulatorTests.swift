import XCTest
import Tiltboard
import TiltboardCommands
import TiltboardSimulator

/// The sentences of TiltboardSimulator's motion script and trace errors in the one table; the
/// simulator's own tests assert the problems and their fields.
final class ErrorWordingSimulatorTests: XCTestCase {
    func testEveryMotionScriptProblemHasItsSentence() {
        let docs = " (see MotionScript's documentation for the JSON form)"
        let cases: [(MotionScriptError, String)] = [
            (MotionScriptError(.segmentKey(segment: 1, kinds: ["hold", "rotate", "shake"]), inJSON: true),
             "motion script: segment 1: expected exactly one of hold, rotate, shake as its key"),
            (MotionScriptError(.outOfRange(segment: 2, kind: nil, key: "seconds", value: -1, rule: .finiteNonNegative)),
             "segment 2: seconds must be a finite number ≥ 0, got -1.0"),
            (MotionScriptError(.outOfRange(segment: 1, kind: "shake", key: "frequencyHz", value: 0, rule: .positive)),
             "segment 1 (shake): frequencyHz must be > 0, got 0.0"),
            (MotionScriptError(.outOfRange(segment: 3, kind: "move", key: "peakG", value: .nan, rule: .finite)),
             "segment 3 (move): peakG must be a number, got nan"),
            (MotionScriptError(.outOfRange(segment: 1, kind: "move", key: "rebound", value: -0.5, rule: .nonNegative)),
             "segment 1 (move): rebound must be ≥ 0, got -0.5"),
            (MotionScriptError(.outOfRange(segment: 1, kind: "circle", key: "aspect", value: 2, rule: .aboveZeroUpToOne)),
             "segment 1 (circle): aspect must be more than 0 and at most 1, got 2.0"),
            (MotionScriptError(.outOfRange(segment: 1, kind: "wristShake", key: "swingDeg", value: 90, rule: .aboveZeroBelow90)),
             "segment 1 (wristShake): swingDeg must be more than 0 and less than 90, got 90.0"),
            (MotionScriptError(.outOfRange(segment: 4, kind: "circle", key: "seconds", value: nil, rule: .positive)),
             "segment 4 (circle): seconds must be > 0"),
            (MotionScriptError(.zeroVector(segment: 1, kind: "tap", key: "axis")), "segment 1 (tap): axis must not be [0, 0, 0]"),
            (MotionScriptError(.alongAxis(segment: 1, kind: "circle", key: "across"), inJSON: true),
             "motion script: segment 1 (circle): across must not be [0, 0, 0] or along axis"),
            (MotionScriptError(.moveRamps(segment: 1, givenAccel: 0.25, givenStop: 0), inJSON: true),
             "motion script: segment 1 (move): accelSeconds and stopSeconds must be > 0, got 0.25 and 0.0"),
            (MotionScriptError(.moveTooShort(segment: 1, least: .milliseconds(800), given: .milliseconds(400))),
             "segment 1 (move): seconds must cover the move, at least 0.8, got 0.4"),
            (MotionScriptError(.missingKey(key: "frequencyHz", path: ".segments[0].shake"), inJSON: true),
             "motion script: missing \"frequencyHz\" at .segments[0].shake" + docs),
            (MotionScriptError(.missingKey(key: "segments", path: ""), inJSON: true), "motion script: missing \"segments\" at top level" + docs),
            (MotionScriptError(.wrongType(path: ".tempC", detail: "Expected Double"), inJSON: true),
             "motion script: wrong type at .tempC: Expected Double" + docs),
            (MotionScriptError(.invalidJSON(path: "", detail: "bad", underlying: "at 1"), inJSON: true),
             "motion script: invalid JSON at top level: bad (at 1)" + docs),
            (MotionScriptError(.invalidJSON(path: ".start", detail: "bad", underlying: nil), inJSON: true),
             "motion script: invalid JSON at .start: bad" + docs),
            (MotionScriptError(.badShape(path: ".segments[0].tap.axis[3]", .notThreeNumbers), inJSON: true),
             "motion script: invalid JSON at .segments[0].tap.axis[3]: expected exactly 3 numbers" + docs),
            (MotionScriptError(.undecodable(detail: "x"), inJSON: true), "motion script: unreadable: x" + docs),
            (MotionScriptError(.traceFieldCount(line: 2, found: 3)),
             "trace line 2: expected 4 fields (t,ax,ay,az) or 7 (t,ax,ay,az,gx,gy,gz), found 3"),
            (MotionScriptError(.traceNotANumber(line: 3, field: 3, text: "x")), "trace line 3: field 3 \"x\" is not a number"),
            (MotionScriptError(.traceTimeBackwards(line: 3, time: 0.5, previous: 1)),
             "trace line 3: time 0.5 is earlier than the previous line's 1.0; sort the trace by time"),
            (MotionScriptError(.traceEmpty), "trace: no samples found; expected lines of t,ax,ay,az[,gx,gy,gz]"),
        ]
        for (error, sentence) in cases { XCTAssertEqual(describe(error), sentence) }
    }

    /// A board file's script or trace is worded through the board file's error, the script's words after its path.
    func testABoardFilesScriptErrorIsWordedInside() {
        let error = BoardFileError(file: "b.json", key: "simulation.trace",
                                   problem: .badContents(path: "t.csv", underlying: .init(MotionScriptError(.traceEmpty))))
        XCTAssertEqual(describe(error), "board file b.json: simulation.trace: t.csv: trace: no samples found; expected lines of t,ax,ay,az[,gx,gy,gz]")
    }

    /// A vector of four numbers in a real script: the decoder's path to the extra number, the
    /// shape expected.
    func testAVectorOfTheWrongLengthIsWorded() {
        do {
            _ = try MotionScript(jsonData: Data(#"{"segments":[{"tap":{"axis":[1,0,0,1],"peakG":2,"seconds":1}}]}"#.utf8))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(describe(error),
                           "motion script: invalid JSON at .segments[0].tap.axis[3]: expected exactly 3 numbers (see MotionScript's documentation for the JSON form)")
        }
    }

    /// The real decoder's failures, worded: the path the decoder gives, the pointer to the documentation.
    func testTheDecodersFailuresAreWorded() {
        do {
            _ = try MotionScript(jsonData: Data(#"{"segments":[{"shake":{"axis":[1,0,0],"peakG":2,"seconds":1}}]}"#.utf8))
            XCTFail("no error")
        } catch {
            XCTAssertEqual(describe(error),
                           "motion script: missing \"frequencyHz\" at .segments[0].shake (see MotionScript's documentation for the JSON form)")
        }
    }
}
