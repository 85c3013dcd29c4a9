import XCTest
import Tiltboard
import TiltboardCommands
import TiltboardCore

/// The sentences of TiltboardCore's errors in the one table: every kind and its exact words, as
/// the command line and `serve` show them. (TiltboardCore's own tests assert kinds and fields.)
final class ErrorWordingCoreTests: XCTestCase {
    func testEveryStillnessFailureHasItsSentence() {
        let cases: [(StillnessFailure, String)] = [
            (.tooFewSamples(count: 12, needed: 50), "only 12 samples captured, 50 needed; keep the sensor running longer"),
            (.accelNoise(axis: 0, stdDevG: 0.0234, limitG: 0.015),
             "board moved: X acceleration varied by 23.4 mg rms (limit 15.0 mg); hold the board still"),
            (.accelSpan(axis: 1, spanG: 0.1, limitG: 0.06),
             "board was bumped: Y acceleration spanned 100.0 mg (limit 60.0 mg); hold the board still and avoid touching it"),
            (.gyroNoise(axis: 2, stdDevDps: 1.234, limitDps: 0.5),
             "board rotated: Z rate varied by 1.23 °/s rms (limit 0.50 °/s); hold the board still"),
            (.gravityMagnitude(measuredG: 1.2, toleranceG: 0.1),
             "measured 1.200 g instead of about 1 g (tolerance ±0.10 g); check the range setting and keep the board still"),
            (.gap(.milliseconds(4170)), "no sample for 4.17 s (the sensor was lost)"),
        ]
        for (failure, sentence) in cases { XCTAssertEqual(describe(failure), sentence) }
    }

    func testEveryCalibrationErrorHasItsSentence() {
        let cases: [(CalibrationError, String)] = [
            (.notStill(.gap(.seconds(1))), "capture rejected: no sample for 1.00 s (the sensor was lost)"),
            (.captureTimedOut(after: .seconds(3), lastFailure: nil),
             "the board was not still for long enough within 3 s; put it on a steady surface and try again"),
            (.captureTimedOut(after: .seconds(30), lastFailure: .accelNoise(axis: 0, stdDevG: 0.02, limitG: 0.015)),
             "the board was not still for long enough within 30 s (last problem: board moved: X acceleration varied by 20.0 mg rms "
                + "(limit 15.0 mg); hold the board still); put it on a steady surface and try again"),
            (.ambiguousOrientation(meanG: Vector3(0.6, -0.0234, 0.8)),
             "orientation unclear: measured (0.600, -0.023, 0.800) g; lay the board squarely on one face"),
            (.wrongFace(expected: .yDown, measured: .xUp), "the board lies with +X up, expected -Y up; turn it so that -Y points up"),
            (.repeatedFace(.zUp), "face +Z was captured already; turn the board to a face not yet captured"),
            (.missingFaces([.xDown, .yUp]), "faces still to capture: -X, +Y"),
            (.residualTooLarge(rmsMg: 25.04, maxMg: 40, limitMg: 20),
             "calibration fit is poor: residual 25.0 mg rms, worst face 40.0 mg (limit 20.0 mg); lay each face squarely "
                + "on a level surface and keep it still, then capture again"),
            (.scaleOutOfRange(axis: 1, scale: 1.5, range: 0.8...1.2),
             "Y sensitivity came out 1.500 × nominal, outside 0.80…1.20; check the range setting and that each face was labelled correctly"),
            (.offsetOutOfRange(axis: 0, offsetG: 0.15, limitG: 0.1),
             "X zero-g offset came out 150 mg, beyond ±100 mg; check the sensor and its mounting, then capture again"),
            (.crossAxisOutOfRange(row: 0, column: 2, value: 0.2, limit: 0.1),
             "cross-axis term XZ came out 0.200, beyond ±0.100; lay each face squarely or fit without cross-axis terms"),
            (.singularFit, "the six captures do not determine a calibration; capture each face with a different side up"),
        ]
        for (error, sentence) in cases { XCTAssertEqual(describe(error), sentence) }
    }

    func testAFaceTimeoutWordsItsLastProblem() {
        XCTAssertEqual(describe(FaceTimeout(seconds: 60, remaining: [.zDown, .xUp], lastFailure: .gap(.seconds(2)))),
                       "no new face captured within 60 s (last problem: no sample for 2.00 s (the sensor was lost)); still to do: -Z, +X. "
                           + "Lay the board squarely with one of those faces up and keep it still")
        XCTAssertEqual(describe(FaceTimeout(seconds: 30, remaining: [.yUp], lastFailure: nil)),
                       "no new face captured within 30 s; still to do: +Y. Lay the board squarely with one of those faces up and keep it still")
    }

    func testEveryHapticEffectProblemHasItsSentence() {
        let cases: [(HapticEffectError.Problem, String)] = [
            (.unknownName("wiggle"), "unknown effect 'wiggle': use one of tick, click, double-click, buzz, alarm or pulse:MS (e.g. pulse:150)"),
            (.notANumber(.pulseLength, text: "abc"), "pulse length 'abc' is not a number of milliseconds"),
            (.notPositive(.pulseLength, text: "0", zeroAllowed: false), "pulse length must be more than 0 milliseconds, not 0"),
            (.tooLong(.pulseLength, text: "99999999", limit: .seconds(60)), "pulse length of 99999999 ms is too long: at most 60000 ms"),
            (.notANumber(.offTime(1), text: ""), "off-time #1 '' is not a number of milliseconds"),
            (.notPositive(.onTime(1), text: "0", zeroAllowed: false), "on-time #1 must be more than 0 milliseconds, not 0"),
            (.notPositive(.offTime(1), text: "-5", zeroAllowed: true), "off-time #1 must be 0 or more milliseconds, not -5"),
            (.tooLong(.onTime(2), text: "70000", limit: .seconds(60)), "on-time #2 of 70000 ms is too long: at most 60000 ms"),
            (.badPulseLength(-1), "pulse length must be a positive number of milliseconds, not -1.0"),
            (.noTimings, "a pattern needs at least one on-time, e.g. 100,50,100"),
            (.badTiming(number: 2, given: -3), "timing #2 must be 0 or more milliseconds, not -3.0"),
            (.noOnTime, "a pattern needs an on-time longer than 0 ms"),
            (.badRepeatCount(0), "repeat count must be at least 1 (or omitted to repeat until cancelled), not 0"),
            (.badStrength(1.5), "strength must be more than 0 and at most 1, not 1.5"),
            (.badStrength(0), "strength must be more than 0 and at most 1, not 0.0"),
        ]
        for (problem, sentence) in cases { XCTAssertEqual(describe(HapticEffectError(problem)), sentence) }
    }

    func testABoardFilesShakeEffectIsWordedAsTheEffect() {
        let error = BoardFileError(file: "Boards/x.json", key: "motor.shakeEffect", problem: .badShakeEffect(HapticEffectError(.unknownName("zap"))))
        XCTAssertEqual(describe(error), "board file Boards/x.json: motor.shakeEffect: unknown effect 'zap': use one of tick, click, "
                           + "double-click, buzz, alarm or pulse:MS (e.g. pulse:150)")
    }

    func testTheLogFormNamesTheKindAndItsFields() {
        XCTAssertEqual("\(HapticEffectError(.noOnTime))", "HapticEffectError(noOnTime)")
        XCTAssertEqual("\(CalibrationError.repeatedFace(.zUp))", "CalibrationError.repeatedFace(+Z)")
        XCTAssertEqual("\(StillnessFailure.gap(.milliseconds(4500)))", "StillnessFailure.gap(4.5 seconds)")
    }
}
