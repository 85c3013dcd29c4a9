#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Tiltboard
import TiltboardCommands
import TiltboardCore
import TiltboardDrivers
import XCTest

/// The words of board-file errors, as the command line and `serve` say them: each mistake in a
/// board file and its exact sentence from the one table (`describe(_:)`). The library's own tests
/// assert the kinds and fields.
final class BoardFileWordingTests: XCTestCase {
    private func parse(_ text: String, source: String = "Boards/x.json") throws -> BoardDescription {
        try BoardDescription.parse(json: Array(text.utf8), source: source)
    }

    /// The one line the table gives for a bad board file.
    private func message(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let board = try parse(text)
            XCTFail("parsed without error: \(board)", file: file, line: line)
            return ""
        } catch let error as BoardFileError {
            XCTAssertFalse(describe(error).contains("\n"), "message spans lines", file: file, line: line)
            return describe(error)
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return ""
        }
    }

    private let minimal = #"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}"#

    private func faultBoard(_ faults: String) -> String {
        #"{"name": "f", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": {"faults": "# + faults + "}}"
    }

    func testBadValuesNameFileKeyValueAndWhatIsAllowed() {
        func sensor(_ extra: String, chip: String = "mpu6050") -> String {
            #"{"name": "b", "sensor": {"chip": "\#(chip)", "bus": "/dev/i2c-1", \#(extra)}}"#
        }
        XCTAssertEqual(message(sensor(#""accelRangeG": 3"#)),
                       "board file Boards/x.json: sensor.accelRangeG: 3 is not allowed (use 2, 4, 8 or 16)")
        XCTAssertEqual(message(sensor(#""accelRangeG": "2""#)),
                       "board file Boards/x.json: sensor.accelRangeG: \"2\" is not allowed (use 2, 4, 8 or 16)")
        XCTAssertEqual(message(sensor(#""gyroRangeDps": 300"#)),
                       "board file Boards/x.json: sensor.gyroRangeDps: 300 is not allowed (use 250, 500, 1000 or 2000)")
        XCTAssertEqual(message(sensor(#""gyroRangeDps": 250"#, chip: "adxl345")),
                       "board file Boards/x.json: sensor.gyroRangeDps: the ADXL345 has no gyro (remove the key)")
        XCTAssertEqual(message(sensor(#""address": "0x53""#)),
                       "board file Boards/x.json: sensor.address: \"0x53\" is not allowed (the MPU-6050 answers at 0x68 or 0x69)")
        XCTAssertEqual(message(sensor(#""address": 104"#, chip: "adxl345")),
                       "board file Boards/x.json: sensor.address: 104 is not allowed (the ADXL345 answers at 0x53 or 0x1D)")
        XCTAssertEqual(message(sensor(#""rateHz": 2000"#)),
                       "board file Boards/x.json: sensor.rateHz: 2000 is not allowed (the MPU-6050 runs at 4 to 1000 Hz)")
        XCTAssertEqual(message(sensor(#""rateHz": 0.05"#, chip: "adxl345")),
                       "board file Boards/x.json: sensor.rateHz: 0.05 is not allowed (the ADXL345 runs at 0.1 to 3200 Hz)")
        XCTAssertEqual(message(sensor(#""fifo": 1"#)),
                       "board file Boards/x.json: sensor.fifo: 1 is not allowed (use true or false)")
        XCTAssertEqual(message(#"{"name": "b", "sensor": {"chip": "mpu9250", "bus": "/dev/i2c-1"}}"#),
                       "board file Boards/x.json: sensor.chip: \"mpu9250\" is not allowed (use \"mpu6050\", \"adxl345\", \"lis3dh\", \"lsm9ds1\" or \"icm20948\")")
        XCTAssertEqual(message(#"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c"}}"#),
                       "board file Boards/x.json: sensor.bus: \"/dev/i2c\" is not allowed (use \"/dev/i2c-N\", e.g. \"/dev/i2c-1\", or \"simulated\")")
        XCTAssertEqual(message(minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": -1}}"#),
                       "board file Boards/x.json: motor.line: -1 is not allowed (use a line offset like 17 or a line name like \"GPIO17\")")
        XCTAssertEqual(message(minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17, "shakeEffect": "pulse:x"}}"#),
                       "board file Boards/x.json: motor.shakeEffect: pulse length 'x' is not a number of milliseconds")
        XCTAssertEqual(message(minimal + #", "shake": {"minFraction": 1.5}}"#),
                       "board file Boards/x.json: shake.minFraction: 1.5 is not allowed (use a fraction from 0 to 1)")
        XCTAssertEqual(message(minimal + #", "shake": {"minDurationMs": 45}}"#),
                       "board file Boards/x.json: shake.minDurationMs: no longer applies: a single burst no longer starts a shake, "
                       + "only a back-and-forth does; remove it and set minReversals (default 2: three alternating half-cycles) instead")
        XCTAssertEqual(message(minimal + #", "shake": {"minReversals": 0}}"#),
                       "board file Boards/x.json: shake.minReversals: 0 is not allowed (use an integer from 1 to 20)")
        XCTAssertEqual(message(minimal + #", "shake": {"thresholdG": 0}}"#),
                       "board file Boards/x.json: shake.thresholdG: 0 is not allowed (use more than 0 and at most 16 g)")
        XCTAssertEqual(message(minimal + #", "shake": {"minReversals": 2.5}}"#),
                       "board file Boards/x.json: shake.minReversals: 2.5 is not allowed (use an integer from 1 to 20)")
    }

    /// The older keys in seconds are still read: 2 s and 0.5 s by default, each 0.05…60 s.
    func testMotorCapKeysInSecondsStillRead() throws {
        let motor = minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17"#
        let edges = try parse(motor + #", "maxOnSeconds": 0.05, "minRestSeconds": 60}}"#).motor
        XCTAssertEqual(edges?.cap, MotorCapSettings(maxOnSeconds: 0.05, minRestSeconds: 60))
        for key in ["maxOnSeconds", "minRestSeconds"] {
            for bad in ["0", "0.049", "60.5", "-1", "\"2\"", "null"] {
                XCTAssertEqual(message(motor + #", "\#(key)": \#(bad)}}"#),
                               "board file Boards/x.json: motor.\(key): \(bad) is not allowed (use 0.05 to 60 seconds)")
            }
        }
    }

    func testSimulationValues() {
        let head = #"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": "#
        XCTAssertEqual(message(head + #"{"whoAmI": "0x1FF"}}"#),
                       "board file Boards/x.json: simulation.whoAmI: \"0x1FF\" is not allowed (use a byte such as \"0x68\" or \"0x70\")")
        XCTAssertEqual(message(head + #"{"scaleError": [0.02, 0.01]}}"#),
                       "board file Boards/x.json: simulation.scaleError: [0.02,0.01] is not allowed (use [x, y, z] fractions, each within ±0.5 (0.02 = +2 %))")
        XCTAssertEqual(message(head + #"{"seed": -1}}"#),
                       "board file Boards/x.json: simulation.seed: -1 is not allowed (use an integer from 0 to 2^53)")
        XCTAssertEqual(message(head + #"{"script": "flat", "trace": "t.csv"}}"#),
                       "board file Boards/x.json: simulation.trace: give either script or trace, not both")
        XCTAssertEqual(message(minimal + #", "simulation": {"script": "flat"}}"#),
                       "board file Boards/x.json: simulation: only allowed when sensor.bus is \"simulated\" (remove it, or set the bus)")
    }

    func testMountMustBeARotation() {
        XCTAssertEqual(message(minimal + #", "mount": [[1,0,0],[0,1,0],[0,0,-1]]}"#),
                       "board file Boards/x.json: mount: [[1,0,0],[0,1,0],[0,0,-1]] is a mirror image (determinant -1), not a rotation: flip the sign of one more row")
        XCTAssertEqual(message(minimal + #", "mount": [[1,0,0],[0,2,0],[0,0,1]]}"#),
                       "board file Boards/x.json: mount: [[1,0,0],[0,2,0],[0,0,1]] is not a rotation: rows must be orthonormal unit vectors (use a signed permutation such as [[0,1,0],[-1,0,0],[0,0,1]])")
        XCTAssertEqual(message(minimal + #", "mount": [[1,0,0],[0,1,0]]}"#),
                       "board file Boards/x.json: mount: [[1,0,0],[0,1,0]] is not allowed (use 3 rows of 3 numbers, e.g. [[1,0,0],[0,1,0],[0,0,1]])")
    }

    func testUnknownKeysListTheAllowedOnes() {
        XCTAssertEqual(message(#"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1", "acelRangeG": 2}}"#),
                       "board file Boards/x.json: sensor.acelRangeG: unknown key (allowed in sensor: chip, bus, address, accelRangeG, gyroRangeDps, rateHz, fifo)")
        XCTAssertEqual(message(minimal + #", "motors": {}}"#),
                       "board file Boards/x.json: motors: unknown key (allowed: name, sensor, motor, mount, simulation, shake, interrupt)")
    }

    func testMissingKeys() {
        XCTAssertEqual(message(#"{"sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}}"#),
                       "board file Boards/x.json: name: missing (give the board a name)")
        XCTAssertEqual(message(#"{"name": "b", "sensor": {"bus": "/dev/i2c-1"}}"#),
                       "board file Boards/x.json: sensor.chip: missing (use \"mpu6050\", \"adxl345\", \"lis3dh\", \"lsm9ds1\" or \"icm20948\")")
        XCTAssertEqual(message(minimal + #", "motor": {"line": 17}}"#),
                       "board file Boards/x.json: motor.chip: missing (a chip label like \"pinctrl-bcm2711\", a name like \"gpiochip0\" or a path)")
    }

    func testMalformedJSONNamesLineAndColumn() {
        XCTAssertEqual(message("{\n  \"name\": \"b\",\n  \"sensor\": }\n"),
                       "board file Boards/x.json: not valid JSON: Invalid value at line 3, column 13")
        XCTAssertTrue(message("{\"name\": \"b\"").hasPrefix("board file Boards/x.json: not valid JSON: "))
        XCTAssertEqual(message("[1, 2]"), "board file Boards/x.json: the top level must be an object { … }, found [1,2]")
    }

    func testMissingFileSaysSo() throws {
        let folder = try makeScratchFolder(self)
        XCTAssertThrowsError(try BoardDescription.load(path: folder + "/nope.json")) { error in
            XCTAssertEqual(describe(error),
                           "board file \(folder)/nope.json: no such file")
        }
    }

    func testEachFaultMistakeNamesTheFileAndKey() {
        let cases: [(String, String)] = [
            (#"{"at": 1}"#, #"board file Boards/x.json: simulation.faults: an object { … } is not allowed (use a list of {"at": seconds, "kind": "nack", "eio", "reset", "unplug", "seconds": duration})"#),
            (#"[{"at": 1, "kind": "glitch", "seconds": 1}]"#, #"board file Boards/x.json: simulation.faults[0].kind: "glitch" is not allowed (use one of "nack", "eio", "reset", "unplug")"#),
            (#"[{"at": 1, "kind": "reset"}, {"at": 1, "seconds": 1}]"#, #"board file Boards/x.json: simulation.faults[1].kind: missing (use one of "nack", "eio", "reset", "unplug")"#),
            (#"[{"kind": "reset"}]"#, "board file Boards/x.json: simulation.faults[0].at: missing (seconds since the board opened)"),
            (#"[{"at": -1, "kind": "reset"}]"#, "board file Boards/x.json: simulation.faults[0].at: -1 is not allowed (use 0 to 86400 seconds since the board opened)"),
            (#"[{"at": "soon", "kind": "reset"}]"#, #"board file Boards/x.json: simulation.faults[0].at: "soon" is not allowed (use 0 to 86400 seconds since the board opened)"#),
            (#"[{"at": 1, "kind": "nack"}]"#, "board file Boards/x.json: simulation.faults[0].seconds: missing (how long the nack lasts, in seconds)"),
            (#"[{"at": 1, "kind": "unplug", "seconds": 0}]"#, "board file Boards/x.json: simulation.faults[0].seconds: 0 is not allowed (use more than 0 and at most 3600 seconds)"),
            (#"[{"at": 1, "kind": "reset", "seconds": 1}]"#, "board file Boards/x.json: simulation.faults[0].seconds: a reset takes no time (remove the key)"),
            (#"[{"at": 1, "kind": "eio", "seconds": 1, "errno": 5}]"#, "board file Boards/x.json: simulation.faults[0].errno: unknown key (allowed in simulation.faults[0]: at, kind, seconds)"),
            (#"[3]"#, "board file Boards/x.json: simulation.faults[0]: 3 is not allowed (use an object { … })"),
        ]
        for (faults, expected) in cases {
            XCTAssertEqual(message(faultBoard(faults)), expected, faults)
        }
        let many = "[" + Array(repeating: #"{"at": 1, "kind": "reset"}"#, count: 101).joined(separator: ",") + "]"
        XCTAssertEqual(message(faultBoard(many)), "board file Boards/x.json: simulation.faults: 101 faults; at most 100")
    }

    /// Every kind the parser above does not reach, straight from the table.
    func testEveryOtherKindHasItsSentence() {
        func line(_ key: String, _ problem: BoardFileError.Problem) -> String {
            describe(BoardFileError(file: "b.json", key: key, problem: problem))
        }
        let cases: [(String, String)] = [
            (line("", .unreadable(errno: EACCES)), "board file b.json: cannot read it: Permission denied (errno 13): check the file's permissions"),
            (line("", .unreadable(errno: ELOOP)),
             "board file b.json: cannot read it: Too many levels of symbolic links (errno 40): a symlink loop (or more than 40 links in a row): point the link at the board file itself"),
            (line("", .unreadable(errno: EIO)), "board file b.json: cannot read it: Input/output error (errno 5)"),
            (line("", .notRegularFile(kind: .folder)), "board file b.json: a folder, not a regular file: give the path of a board file (or a symlink to one)"),
            (line("", .tooLarge(size: 9, limit: 8)), "board file b.json: a file of 9 bytes, more than the 8 bytes it may have: not a board file"),
            (line("", .noSuchFile), "board file b.json: no such file"),
            (line("", .invalidJSON(detail: "Unexpected end of file", line: nil, column: nil)), "board file b.json: not valid JSON: Unexpected end of file"),
            (line("", .invalidJSON(detail: "Invalid value", line: 3, column: 13)), "board file b.json: not valid JSON: Invalid value at line 3, column 13"),
            (line("name", .notStrictJSON(.keyTwice(line: 1, column: 15))),
             "board file b.json: name: appears twice in one object (again at line 1, column 15): keep one"),
            (line("", .notStrictJSON(.commaBefore("}", line: 1, column: 65))), "board file b.json: a comma before \"}\" at line 1, column 65: remove it"),
            (line("sensor", .missing(.sensor)), "board file b.json: sensor: missing (give at least chip and bus)"),
            (line("sensor.bus", .missing(.bus)), "board file b.json: sensor.bus: missing (use \"/dev/i2c-N\", e.g. \"/dev/i2c-1\", or \"simulated\")"),
            (line("motor.line", .missing(.gpioLine)), "board file b.json: motor.line: missing (a line offset like 17 or a line name like \"GPIO17\")"),
            (line("motor.maxOnMs", .keyAndOlderKey(older: "maxOnSeconds")), "board file b.json: motor.maxOnMs: give it or the older maxOnSeconds, not both"),
            (line("motor.maxOnMs", .notAllowed(value: "49", allowed: .span(low: 50, high: 60_000, unit: .milliseconds))),
             "board file b.json: motor.maxOnMs: 49 is not allowed (use 50 to 60000 ms)"),
            (line("name", .notAllowed(value: "1", allowed: .string)), "board file b.json: name: 1 is not allowed (use a string in quotes)"),
            (line("name", .notAllowed(value: "\"\"", allowed: .nonEmptyString)), "board file b.json: name: \"\" is not allowed (use a non-empty string)"),
            (line("simulation.script", .notAllowed(value: "1", allowed: .script)),
             "board file b.json: simulation.script: 1 is not allowed (use a built-in script name such as \"flat\" or a path to a script file)"),
            (line("simulation.trace", .notAllowed(value: "1", allowed: .tracePath)), "board file b.json: simulation.trace: 1 is not allowed (use a path to a CSV trace)"),
            (line("simulation.motorLog", .notAllowed(value: "1", allowed: .filePath)), "board file b.json: simulation.motorLog: 1 is not allowed (use a file path)"),
            (line("simulation.zeroGOffsetMg", .notAllowed(value: "[1]", allowed: .vector(.milliG, limit: 1000))),
             "board file b.json: simulation.zeroGOffsetMg: [1] is not allowed (use [x, y, z] in mg, each within ±1000)"),
            (line("simulation.part.gyroBiasDps", .notAllowed(value: "[1]", allowed: .vector(.degreesPerSecond, limit: 250))),
             "board file b.json: simulation.part.gyroBiasDps: [1] is not allowed (use [x, y, z] in °/s, each within ±250)"),
            (line("simulation.part.gyroBiasTempcoDpsPerC", .notAllowed(value: "[1]", allowed: .vector(.degreesPerSecondPerCelsius, limit: 5))),
             "board file b.json: simulation.part.gyroBiasTempcoDpsPerC: [1] is not allowed (use [x, y, z] in °/s per °C, each within ±5)"),
            (line("simulation.part.zeroGTempcoMgPerC", .notAllowed(value: "[1]", allowed: .vector(.milliGPerCelsius, limit: 20))),
             "board file b.json: simulation.part.zeroGTempcoMgPerC: [1] is not allowed (use [x, y, z] in mg per °C, each within ±20)"),
            (line("simulation.part", .notAllowed(value: "\"best\"", allowed: .part(keys: ["gyroBiasDps", "warmUpC"]))),
             "board file b.json: simulation.part: \"best\" is not allowed (use \"typical\", \"worst\" or an object with gyroBiasDps, warmUpC)"),
            (line("simulation.part.warmUpC", .notAllowed(value: "61", allowed: .celsius(low: 0, high: 60))),
             "board file b.json: simulation.part.warmUpC: 61 is not allowed (use °C from 0 to 60)"),
            (line("simulation.part.warmUpSeconds", .notAllowed(value: "0", allowed: .seconds(low: 1, high: 3600))),
             "board file b.json: simulation.part.warmUpSeconds: 0 is not allowed (use seconds from 1 to 3600)"),
            (line("simulation.motorNoise.errorRate", .notAllowed(value: "2", allowed: .chance)),
             "board file b.json: simulation.motorNoise.errorRate: 2 is not allowed (use a chance from 0 to 1)"),
            (line("simulation.trace", .namedFileMissing(path: "t.csv")), "board file b.json: simulation.trace: t.csv: no such file"),
            (line("simulation.trace", .namedFileUnreadable(path: "t.csv", errno: EACCES)),
             "board file b.json: simulation.trace: cannot read t.csv: Permission denied (errno 13): check the file's permissions"),
            (line("simulation.trace", .namedFileUnreadable(path: "t.csv", errno: ENAMETOOLONG)),
             "board file b.json: simulation.trace: cannot read t.csv: File name too long (errno 36): the name (or one of its folders' names) is too long"),
            (line("simulation.trace", .namedFileUnreadable(path: "t.csv", errno: ELOOP)),
             "board file b.json: simulation.trace: cannot read t.csv: Too many levels of symbolic links (errno 40): a symlink loop (or more than 40 links in a row)"),
            (line("simulation.trace", .namedFileNotRegular(path: "t.csv", kind: .fifo)), "board file b.json: simulation.trace: t.csv is a FIFO, not a regular file"),
            (line("simulation.trace", .namedFileTooLarge(path: "t.csv", size: 9, limit: 8)),
             "board file b.json: simulation.trace: t.csv is a file of 9 bytes, more than the 8 bytes it may have"),
            (line("simulation.trace", .traceNotText(path: "t.csv")),
             "board file b.json: simulation.trace: t.csv: not UTF-8 text; a trace is CSV lines of t,ax,ay,az[,gx,gy,gz]"),
            (line("simulation.script", .badContents(path: "s.json", underlying: .init(HapticEffectError(.unknownName("zap"))))),
             "board file b.json: simulation.script: s.json: \(describe(HapticEffectError(.unknownName("zap"))))"),
            (line("simulation.script", .noSuchScript(path: "wobble", builtIn: ["flat", "demo"])),
             "board file b.json: simulation.script: \"wobble\" is neither a built-in script (flat, demo) nor a readable file"),
            (line("interrupt", .noInterruptLine),
             "board file b.json: interrupt: missing: waking on motion needs the sensor's INT pin wired to a GPIO input; add \"interrupt\": {\"chip\": …, \"line\": …} (see Boards/README.md; Boards/simulated-wake.json is a simulated board wired so)"),
        ]
        for (actual, expected) in cases {
            XCTAssertEqual(actual, expected)
        }
    }

    /// A profile that is not strict JSON is worded with the key and position, as a board file's is.
    func testAProfileThatIsNotStrictJSONNamesTheKeyAndWhere() {
        let error = ProfileError(path: "p.json", kind: .corrupt, problem: .notStrictJSON(key: "neutral", .keyTwice(line: 2, column: 3)),
                                 remedy: .recalibrateOrRestore)
        XCTAssertEqual(describe(error), "profile p.json: neutral: appears twice in one object (again at line 2, column 3): keep one")
        XCTAssertEqual(ErrorWording.profileDetail(error), "neutral: appears twice in one object (again at line 2, column 3): keep one")
    }

    /// Every profile problem and its exact sentence.
    func testEveryProfileProblemHasItsSentence() {
        let cases: [(ProfileError.Problem, String)] = [
            (.unreadable(errno: EACCES), "cannot read it: Permission denied (errno 13): check the file's permissions"),
            (.unreadable(errno: ELOOP),
             "cannot read it: Too many levels of symbolic links (errno 40): a symlink loop (or more than 40 links in a row): point the link at the profile itself"),
            (.unreadable(errno: ENAMETOOLONG), "cannot read it: File name too long (errno 36): the name (or one of its folders' names) is too long"),
            (.unreadable(errno: ENOTDIR), "cannot read it: Not a directory (errno 20): a part of the path is not a folder"),
            (.unreadable(errno: EIO), "cannot read it: Input/output error (errno 5)"),
            (.notRegularFile(kind: .folder), "a folder, not a regular file"),
            (.tooLarge(size: 9, limit: 8), "a file of 9 bytes, more than the 8 bytes it may have: not a profile"),
            (.otherBoard(.name(profile: "a", board: "b")), "belongs to another board: it is for board \"a\", not \"b\""),
            (.otherBoard(.chip(profile: "MPU-6050", board: "ADXL345")), "belongs to another board: it is for an MPU-6050, this board has an ADXL345"),
            (.otherBoard(.bus(profile: "/dev/i2c-1", board: "simulated")), "belongs to another board: it is for bus /dev/i2c-1, this board uses simulated"),
            (.otherBoard(.address(profile: 0x68, board: 0x69)), "belongs to another board: it is for address 0x68, this board uses 0x69"),
            (.otherBoard(.chipID(profile: 0x68, board: 0x70)), "belongs to another board: the chip ID is 0x68, this board's chip answers 0x70"),
            (.empty, "the file is empty"),
            (.invalidJSON, "not valid JSON, truncated or corrupt"),
            (.notStrictJSON(key: "", .commaBefore("]", line: 3, column: 1)), "a comma before \"]\" at line 3, column 1: remove it"),
            (.topLevelNotObject, "not a profile: the top level is not an object"),
            (.noSchemaVersion, "schemaVersion is missing or not an integer"),
            (.newerVersion(found: 2, readsUpTo: 1), "written by a newer tiltboard (schema 2; this one reads up to 1): upgrade tiltboard, or recalibrate with this one"),
            (.missingKey("sampleCount"), "sampleCount is missing"),
            (.wrongType(key: "neutral.tiltDeg", detail: "Expected Double"), "neutral.tiltDeg has the wrong type (Expected Double)"),
            (.badValue(key: "neutral.tiltDeg", detail: "Number 1e999 is not representable"), "neutral.tiltDeg: Number 1e999 is not representable"),
            (.badShape(key: "noiseMg[3]", .notThreeNumbers), "noiseMg[3]: expected exactly 3 numbers"),
            (.badShape(key: "sensor.crossAxis", .notThreeRowsOfThree), "sensor.crossAxis: expected 3 rows of 3 numbers"),
            (.badShape(key: "board.chip", .unknownName(kind: "chip", name: "x", known: ["mpu6050", "adxl345"])),
             "board.chip: unknown chip \"x\" (known: \"mpu6050\", \"adxl345\")"),
            (.undecodable, "cannot be decoded"),
            (.notAByte(key: "board.chipID", text: "68"), "board.chipID: \"68\" is not a byte like \"0x68\""),
            (.unknownKey(key: "neutral.extra", allowed: ["clamped", "tiltDeg"]), "unknown key neutral.extra (allowed: clamped, tiltDeg)"),
            (.invalidValue(.sampleCount(-1)), "sampleCount -1 must not be negative"),
            (.refusingToSave(.sampleCount(-1)), "refusing to save: sampleCount -1 must not be negative"),
        ]
        for (problem, sentence) in cases {
            XCTAssertEqual(describe(ProfileError(path: "p.json", kind: .corrupt, problem: problem)), "profile p.json: " + sentence)
        }
    }

    /// Every profile value out of range and its exact sentence.
    func testEveryProfileValueProblemHasItsSentence() {
        let v = Vector3(600, 0, 0)
        let cases: [(ProfileValueProblem, String)] = [
            (.schemaVersion(0), "schemaVersion 0 is not valid (must be 1 or more)"),
            (.boardNameEmpty, "board.name is empty"),
            (.boardBusEmpty, "board.bus is empty"),
            (.boardAddress(0x53, part: "MPU-6050"), "board.address 0x53 is not an address of the MPU-6050"),
            (.createdAt("yesterday"), "createdAt \"yesterday\" is not an ISO 8601 time like 2026-11-21T08:30:00Z"),
            (.temperatureC(200), "temperatureC 200.0 is not a plausible temperature"),
            (.sampleCount(-1), "sampleCount -1 must not be negative"),
            (.gyroBiasDps(v), "gyroBiasDps (600.0, 0.0, 0.0) must be finite and within ±500 °/s"),
            (.noiseMg(v), "noiseMg (600.0, 0.0, 0.0) must be finite and not negative"),
            (.neutralRotation(Quaternion(w: 0.5, x: 0, y: 0, z: 0)), "neutral.rotation (w 0.5, x 0.0, y 0.0, z 0.0) is not a unit quaternion"),
            (.neutralMeanRawG(v), "neutral.meanRawG (600.0, 0.0, 0.0) is not a plausible gravity reading"),
            (.neutralTiltDeg(181), "neutral.tiltDeg 181.0 must be 0…180"),
            (.sourceSensorMeanG(v), "neutralSource.sensorMeanG (600.0, 0.0, 0.0) is not a plausible gravity reading"),
            (.sourceMaxTiltDeg(91), "neutralSource.maxTiltDeg 91.0 must be 0…90"),
            (.shakeLevel("hard", levels: ["gentle", "normal", "firm"]), "shake.level \"hard\" is not a sensitivity: use one of gentle, normal, firm"),
            (.shakeThresholdG(0), "shake.thresholdG 0.0 must be more than 0 and at most 16 g"),
            (.shakeMinReversals(0), "shake.minReversals 0 must be an integer from 1 to 20"),
            (.shakeMinFraction(1.5), "shake.minFraction 1.5 must be a fraction from 0 to 1"),
            (.shakeCooldownMs(-1), "shake.cooldownMs -1.0 must be 0 to 60000 ms"),
            (.sensorOffsetG(v), "sensor.offsetG (600.0, 0.0, 0.0) must be finite and within ±2 g"),
            (.sensorScale(Vector3(0, 0.994, 1.003)),
             "sensor.scale (0.0, 0.994, 1.003) must be 0.5…2 on every axis (a zero or wild scale would wipe out the signal)"),
            (.sensorCrossAxis, "sensor.crossAxis is not a usable correction matrix (not finite or nearly singular)"),
            (.sensorGyroBiasDps(v), "sensor.gyroBiasDps (600.0, 0.0, 0.0) must be finite and within ±500 °/s"),
            (.sensorResidualMg(-1), "sensor.residualMg -1.0 must be finite and not negative"),
        ]
        for (problem, sentence) in cases {
            XCTAssertEqual(ErrorWording.profileValue(problem), sentence)
        }
    }
}

/// The words of the calibration, sensor and motor-log errors of the `Tiltboard` library, from the
/// one table; the library's tests assert their fields.
final class TiltboardErrorWordingTests: XCTestCase {
    func testCalibrationErrorsHaveTheirSentences() {
        XCTAssertEqual(describe(CalibrationStopped()), "calibration interrupted; the profile was not changed")
        XCTAssertEqual(describe(FaceTimeout(seconds: 29.6, remaining: [], lastFailure: nil)),
                       "no new face captured within 30 s; still to do: . Lay the board squarely with one of those faces up and keep it still")
        let failure = StillnessFailure.gap(.milliseconds(500))
        XCTAssertEqual(describe(FaceTimeout(seconds: 60, remaining: BoardFace.allCases, lastFailure: failure)),
                       "no new face captured within 60 s (last problem: \(describe(failure))); still to do: "
                       + BoardFace.allCases.map(\.rawValue).joined(separator: ", ") + ". Lay the board squarely with one of those faces up and keep it still")
        XCTAssertEqual(describe(CalibrationProcedureError(problem: .sensorCrossAxis)),
                       "the fitted calibration cannot be stored: sensor.crossAxis is not a usable correction matrix (not finite or nearly singular); capture the six faces again")
    }

    func testALostSensorNamesTheChipTheSpanAndTheLastError() {
        let inner = MotorLogError(path: "m.log", errno: EISDIR)
        var error = SensorLostError(part: "MPU-6050", bus: "simulated", address: 0x68, seconds: 0.5, lastError: inner)
        XCTAssertEqual(describe(error), "no sample from the MPU-6050 at 0x68 on simulated for 0.5 s, giving up; last error: \(describe(inner))")
        error.seconds = 10
        error.lastError = nil
        XCTAssertEqual(describe(error), "no sample from the MPU-6050 at 0x68 on simulated for 10 s, giving up; last error: none")
        XCTAssertEqual("\(error)", "SensorLostError(MPU-6050, address: 0x68, bus: simulated, seconds: 10.0, lastError: nil)")
    }

    func testAMotorLogThatCannotBeOpenedSaysWhatToDo() {
        let head = "motor log m.log (the board file's simulation.motorLog): cannot open it for appending: "
        let cases: [(Int32, String)] = [
            (EISDIR, "Is a directory (errno 21): a folder, not a file: name a file (in it, or elsewhere)"),
            (ENXIO, "No such device or address (errno 6): a FIFO nobody reads: start its reader first"),
            (ENODEV, "No such device (errno 19): a block device, never appended to: name a file"),
            (EACCES, "Permission denied (errno 13): check the permissions of the file and its folder"),
            (EPERM, "Operation not permitted (errno 1): check the permissions of the file and its folder"),
            (ENOENT, "No such file or directory (errno 2): its folder does not exist"),
            (EIO, "Input/output error (errno 5)"),
        ]
        for (code, end) in cases {
            XCTAssertEqual(describe(MotorLogError(path: "m.log", errno: code)), head + end)
        }
    }

    /// A real profile with a value of the wrong shape: the decoder's key, the shape expected.
    func testAProfileValueOfTheWrongShapeIsWorded() throws {
        let profile = CalibrationProfile(
            board: ProfileBoardIdentity(name: "b", chip: .mpu6050, bus: "simulated", address: 0x68, chipID: 0x68),
            createdAt: "2026-11-21T08:30:00Z", sampleCount: 1, noiseMg: Vector3(1, 1, 1),
            neutral: NeutralPose(rotation: Quaternion(w: 1, x: 0, y: 0, z: 0), meanRawG: Vector3(0, 0, 1), tiltDeg: 0, clamped: false),
            sensor: .init(offsetG: Vector3(0, 0, 0), scale: Vector3(1, 1, 1), crossAxis: Matrix3.identity, gyroBiasDps: nil,
                          residualMg: 1, writtenToChip: false))
        let text = String(decoding: try ProfileStore.encode(profile), as: UTF8.self)
        XCTAssertEqual(try ProfileStore.decode(Array(text.utf8), path: "p.json"), profile)
        let cases: [(String, String, String)] = [
            ("\"noiseMg\" : [\n    1,\n    1,\n    1\n  ]", "\"noiseMg\" : [1, 1, 1, 1]", "noiseMg[3]: expected exactly 3 numbers"),
            ("\"chip\" : \"mpu6050\"", "\"chip\" : \"mpu9999\"",
             "board.chip: unknown chip \"mpu9999\" (known: " + ChipKind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + ")"),
        ]
        for (from, to, sentence) in cases {
            XCTAssertTrue(text.contains(from), from)
            do {
                _ = try ProfileStore.decode(Array(text.replacingOccurrences(of: from, with: to).utf8), path: "p.json")
                XCTFail("no error for \(to)")
            } catch {
                XCTAssertEqual(describe(error), "profile p.json: " + sentence, to)
            }
        }
        // A cross-axis matrix of two rows, decoded alone: the shape, carried for the reader.
        XCTAssertThrowsError(try JSONDecoder().decode(Matrix3.self, from: Data("[[1,0,0],[0,1,0]]".utf8))) { error in
            guard case let .dataCorrupted(context) = error as? DecodingError else { return XCTFail("\(error)") }
            XCTAssertEqual(context.underlyingError as? DecodedValueProblem, .notThreeRowsOfThree)
        }
    }
}
