import Foundation
import Tiltboard
import XCTest
import TiltboardCore
import TiltboardDrivers

final class BoardFileTests: XCTestCase {
    private func parse(_ text: String, source: String = "Boards/x.json") throws -> BoardDescription {
        try BoardDescription.parse(json: Array(text.utf8), source: source)
    }

    /// The key and the kind of problem a bad board file gives (`BoardFileWordingTests` pins the words).
    private struct Failure: Equatable {
        var key: String
        var problem: BoardFileError.Problem
        init(_ key: String, _ problem: BoardFileError.Problem) { self.key = key; self.problem = problem }
    }

    private func failure(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> Failure? {
        do {
            let board = try parse(text)
            XCTFail("parsed without error: \(board)", file: file, line: line)
            return nil
        } catch let error as BoardFileError {
            XCTAssertEqual(error.file, "Boards/x.json", file: file, line: line)
            return Failure(error.key, error.problem)
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return nil
        }
    }

    private let minimal = #"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}"#

    func testEveryShippedBoardFileLoads() throws {
        let folder = packageRoot + "/Boards"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(names, ["adxl345.json", "icm20948.json", "lis3dh.json", "mpu6050-pi5.json", "mpu6050.json",
                               "sense-hat.json", "simulated-adxl345.json", "simulated-clone.json", "simulated-faults.json",
                               "simulated-icm20948.json", "simulated-lis3dh.json", "simulated-motor-noise.json",
                               "simulated-mpu6050.json", "simulated-no-motor.json", "simulated-sense-hat.json",
                               "simulated-wake.json"])
        for name in names {
            let board = try BoardDescription.load(path: folder + "/" + name)
            XCTAssertEqual(board.source, folder + "/" + name)
            XCTAssertEqual(board.isSimulated, name.hasPrefix("simulated"), name)
            XCTAssertEqual(board.isSimulated, board.simulation != nil, name)
            // The Sense HAT has no vibration motor.
            XCTAssertEqual(board.motor == nil, name == "simulated-no-motor.json" || name.hasSuffix("sense-hat.json"), name)
        }
    }

    func testGY521BoardFileHasExactlyTheDocumentedValues() throws {
        let path = packageRoot + "/Boards/mpu6050.json"
        let board = try BoardDescription.load(path: path)
        let expected = BoardDescription(
            name: "GY-521 on Raspberry Pi", source: path,
            sensor: .init(chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68, accelRangeG: 2, gyroRangeDps: 500, rateHz: 100, fifo: false),
            motor: .init(line: .init(chip: "pinctrl-bcm2711", line: .offset(17)), activeLow: false),
            mount: .identity)
        XCTAssertEqual(board, expected)
        // Exactly the keys of the documented example, nothing more.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        XCTAssertEqual(object?.keys.sorted(), ["motor", "mount", "name", "sensor"])
        XCTAssertEqual((object?["sensor"] as? [String: Any])?.keys.sorted(), ["accelRangeG", "address", "bus", "chip", "rateHz"])
        XCTAssertEqual((object?["motor"] as? [String: Any])?.keys.sorted(), ["activeLow", "chip", "line"])
    }

    func testShippedVariants() throws {
        let pi5 = try BoardDescription.load(path: packageRoot + "/Boards/mpu6050-pi5.json")
        XCTAssertEqual(pi5.motor?.line, .init(chip: "pinctrl-rp1", line: .name("GPIO17")))
        let adxl = try BoardDescription.load(path: packageRoot + "/Boards/adxl345.json")
        XCTAssertEqual(adxl.sensor.chip, .adxl345)
        XCTAssertEqual(adxl.sensor.address, 0x53)
        let clone = try BoardDescription.load(path: packageRoot + "/Boards/simulated-clone.json")
        XCTAssertEqual(clone.simulation?.whoAmI, 0x70)
        let simADXL = try BoardDescription.load(path: packageRoot + "/Boards/simulated-adxl345.json")
        XCTAssertEqual(simADXL.simulation, .init(script: "flat", noise: true, seed: 42))
        XCTAssertEqual(simADXL.sensor.chip, .adxl345)
    }

    func testDefaultsAndFullFile() throws {
        let b = try parse(minimal + "}")
        XCTAssertEqual(b.sensor, .init(chip: .mpu6050, bus: "/dev/i2c-1", address: 0x68))
        XCTAssertNil(b.motor)
        XCTAssertEqual(b.mount, .identity)
        XCTAssertNil(b.simulation)

        let full = try parse("""
        {"name": "full", "sensor": {"chip": "mpu6050", "bus": "simulated", "address": 105, "accelRangeG": 8,
          "gyroRangeDps": 2000, "rateHz": 1000, "fifo": true},
         "motor": {"chip": "gpiochip0", "line": "GPIO27", "activeLow": true, "shakeEffect": "buzz", "maxOnMs": 500,
           "minRestMs": 1500},
         "mount": [[0, 1, 0], [-1, 0, 0], [0, 0, 1]],
         "simulation": {"trace": "traces/t.csv", "noise": false, "seed": 9, "whoAmI": 114,
           "zeroGOffsetMg": [40, -30, 60], "scaleError": [0.02, -0.01, 0], "motorLog": "/tmp/m.log"},
         "shake": {"thresholdG": 1.5, "minFraction": 0.4, "minReversals": 3, "cooldownMs": 800},
         "interrupt": {"chip": "pinctrl-bcm2711", "line": 4}}
        """, source: "/etc/tiltboard/full.json")
        XCTAssertEqual(full.sensor, .init(chip: .mpu6050, bus: "simulated", address: 0x69, accelRangeG: 8,
                                          gyroRangeDps: 2000, rateHz: 1000, fifo: true))
        XCTAssertEqual(full.motor, .init(line: .init(chip: "gpiochip0", line: .name("GPIO27")), activeLow: true,
                                         shakeEffect: .buzz, maxOnSeconds: 0.5, minRestSeconds: 1.5))
        XCTAssertEqual(full.motor?.cap, MotorCapSettings(maxOnSeconds: 0.5, minRestSeconds: 1.5))
        XCTAssertEqual(full.mount, Matrix3(rows: Vector3(0, 1, 0), Vector3(-1, 0, 0), Vector3(0, 0, 1)))
        XCTAssertEqual(full.simulation, .init(trace: "/etc/tiltboard/traces/t.csv", noise: false, seed: 9, whoAmI: 0x72,
                                              zeroGOffsetMg: Vector3(40, -30, 60), scaleError: Vector3(0.02, -0.01, 0),
                                              motorLog: "/tmp/m.log"))
        XCTAssertEqual(full.shake, .init(thresholdG: 1.5, minFraction: 0.4, minReversals: 3, cooldownMs: 800))
        XCTAssertEqual(full.interrupt, .init(line: .init(chip: "pinctrl-bcm2711", line: .offset(4))))
    }

    func testRelativeSimulationPathsResolveAgainstTheBoardFolder() throws {
        let b = try parse(#"{"name": "s", "sensor": {"chip": "adxl345", "bus": "simulated"}, "simulation": {"script": "moves/tilt.json", "motorLog": "motor.log"}}"#,
                          source: "Boards/sub/s.json")
        XCTAssertEqual(b.simulation?.script, "Boards/sub/moves/tilt.json")
        XCTAssertEqual(b.simulation?.motorLog, "Boards/sub/motor.log")
        XCTAssertEqual(b.sensor.address, 0x53)
        let named = try parse(#"{"name": "s", "sensor": {"chip": "adxl345", "bus": "simulated"}, "simulation": {"script": "demo"}}"#,
                              source: "Boards/sub/s.json")
        XCTAssertEqual(named.simulation?.script, "demo", "a built-in script name is not a path")
    }

    func testBadValuesNameFileKeyValueAndWhatIsAllowed() {
        func sensor(_ extra: String, chip: String = "mpu6050") -> String {
            #"{"name": "b", "sensor": {"chip": "\#(chip)", "bus": "/dev/i2c-1", \#(extra)}}"#
        }
        XCTAssertEqual(failure(sensor(#""accelRangeG": 3"#)),
                       Failure("sensor.accelRangeG", .notAllowed(value: "3", allowed: .oneOf([2, 4, 8, 16]))))
        XCTAssertEqual(failure(sensor(#""accelRangeG": "2""#)),
                       Failure("sensor.accelRangeG", .notAllowed(value: "\"2\"", allowed: .oneOf([2, 4, 8, 16]))))
        XCTAssertEqual(failure(sensor(#""gyroRangeDps": 300"#)),
                       Failure("sensor.gyroRangeDps", .notAllowed(value: "300", allowed: .oneOf([250, 500, 1000, 2000]))))
        XCTAssertEqual(failure(sensor(#""gyroRangeDps": 250"#, chip: "adxl345")),
                       Failure("sensor.gyroRangeDps", .noGyroscope(part: "ADXL345")))
        XCTAssertEqual(failure(sensor(#""address": "0x53""#)),
                       Failure("sensor.address", .notAllowed(value: "\"0x53\"", allowed: .address(part: "MPU-6050", addresses: [104, 105]))))
        XCTAssertEqual(failure(sensor(#""address": 104"#, chip: "adxl345")),
                       Failure("sensor.address", .notAllowed(value: "104", allowed: .address(part: "ADXL345", addresses: [83, 29]))))
        XCTAssertEqual(failure(sensor(#""rateHz": 2000"#)),
                       Failure("sensor.rateHz", .notAllowed(value: "2000", allowed: .rateHz(part: "MPU-6050", low: 4.0, high: 1000.0))))
        XCTAssertEqual(failure(sensor(#""rateHz": 0.05"#, chip: "adxl345")),
                       Failure("sensor.rateHz", .notAllowed(value: "0.05", allowed: .rateHz(part: "ADXL345", low: 0.1, high: 3200.0))))
        XCTAssertEqual(failure(sensor(#""fifo": 1"#)),
                       Failure("sensor.fifo", .notAllowed(value: "1", allowed: .bool)))
        XCTAssertEqual(failure(#"{"name": "b", "sensor": {"chip": "mpu9250", "bus": "/dev/i2c-1"}}"#),
                       Failure("sensor.chip", .notAllowed(value: "\"mpu9250\"", allowed: .chip(choices: ["mpu6050", "adxl345", "lis3dh", "lsm9ds1", "icm20948"]))))
        XCTAssertEqual(failure(#"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c"}}"#),
                       Failure("sensor.bus", .notAllowed(value: "\"/dev/i2c\"", allowed: .bus)))
        XCTAssertEqual(failure(minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": -1}}"#),
                       Failure("motor.line", .notAllowed(value: "-1", allowed: .line)))
        let effect = failure(minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17, "shakeEffect": "pulse:x"}}"#)
        XCTAssertEqual(effect?.key, "motor.shakeEffect")
        guard case .badShakeEffect = effect?.problem else { return XCTFail("\(String(describing: effect))") }
        XCTAssertEqual(failure(minimal + #", "shake": {"minFraction": 1.5}}"#),
                       Failure("shake.minFraction", .notAllowed(value: "1.5", allowed: .fraction)))
        XCTAssertEqual(failure(minimal + #", "shake": {"minDurationMs": 45}}"#),
                       Failure("shake.minDurationMs", .retiredMinDuration))
        XCTAssertEqual(failure(minimal + #", "shake": {"minReversals": 0}}"#),
                       Failure("shake.minReversals", .notAllowed(value: "0", allowed: .integerRange(low: 1, high: 20))))
        XCTAssertEqual(failure(minimal + #", "shake": {"thresholdG": 0}}"#),
                       Failure("shake.thresholdG", .notAllowed(value: "0", allowed: .positiveG(high: 16.0))))
        XCTAssertEqual(failure(minimal + #", "shake": {"minReversals": 2.5}}"#),
                       Failure("shake.minReversals", .notAllowed(value: "2.5", allowed: .integerRange(low: 1, high: 20))))
    }

    /// The on-time cap's two keys in milliseconds: 2000 and 500 by default, each 50…60000.
    func testMotorCapKeysInMilliseconds() throws {
        let motor = minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17"#
        XCTAssertEqual(try parse(motor + "}}").motor?.cap, MotorCapSettings(maxOnSeconds: 2, minRestSeconds: 0.5))
        let edges = try parse(motor + #", "maxOnMs": 50, "minRestMs": 60000}}"#).motor
        XCTAssertEqual(edges?.cap, MotorCapSettings(maxOnSeconds: 0.05, minRestSeconds: 60))
        XCTAssertEqual(try parse(motor + #", "maxOnMs": 750}}"#).motor?.cap, MotorCapSettings(maxOnSeconds: 0.75, minRestSeconds: 0.5))
        for key in ["maxOnMs", "minRestMs"] {
            for bad in ["0", "49", "60001", "-1", "\"2000\"", "null"] {
                XCTAssertThrowsError(try parse(motor + #", "\#(key)": \#(bad)}}"#)) { error in
                    XCTAssertEqual((error as? BoardFileError)?.key, "motor.\(key)", "\(error)")
                }
            }
        }
        // The new key and the old one for the same span at once: which one was meant is unclear.
        XCTAssertThrowsError(try parse(motor + #", "maxOnMs": 500, "maxOnSeconds": 0.5}}"#)) { error in
            XCTAssertEqual((error as? BoardFileError)?.key, "motor.maxOnMs", "\(error)")
        }
        // An unknown key's message lists the keys in milliseconds, not the older ones.
        XCTAssertEqual(failure(motor + #", "maxOn": 1}}"#),
                       Failure("motor.maxOn", .unknownKey(section: "motor", allowed: ["chip", "line", "activeLow", "shakeEffect", "maxOnMs", "minRestMs"])))
    }

    /// The older keys in seconds are still read: 2 s and 0.5 s by default, each 0.05…60 s.
    func testMotorCapKeysInSecondsStillRead() throws {
        let motor = minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17"#
        let edges = try parse(motor + #", "maxOnSeconds": 0.05, "minRestSeconds": 60}}"#).motor
        XCTAssertEqual(edges?.cap, MotorCapSettings(maxOnSeconds: 0.05, minRestSeconds: 60))
        for key in ["maxOnSeconds", "minRestSeconds"] {
            for bad in ["0", "0.049", "60.5", "-1", "\"2\"", "null"] {
                XCTAssertEqual(failure(motor + #", "\#(key)": \#(bad)}}"#),
                               Failure("motor.\(key)", .notAllowed(value: WrittenValue(stringLiteral: bad), allowed: .span(low: 0.05, high: 60, unit: .seconds))))
            }
        }
    }

    func testSimulationValues() {
        let head = #"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "simulated"}, "simulation": "#
        XCTAssertEqual(failure(head + #"{"whoAmI": "0x1FF"}}"#),
                       Failure("simulation.whoAmI", .notAllowed(value: "\"0x1FF\"", allowed: .byte)))
        XCTAssertEqual(failure(head + #"{"scaleError": [0.02, 0.01]}}"#),
                       Failure("simulation.scaleError", .notAllowed(value: "[0.02,0.01]", allowed: .vector(.fraction, limit: 0.5))))
        XCTAssertEqual(failure(head + #"{"seed": -1}}"#),
                       Failure("simulation.seed", .notAllowed(value: "-1", allowed: .seed)))
        XCTAssertEqual(failure(head + #"{"script": "flat", "trace": "t.csv"}}"#),
                       Failure("simulation.trace", .scriptAndTrace))
        XCTAssertEqual(failure(minimal + #", "simulation": {"script": "flat"}}"#),
                       Failure("simulation", .simulationNeedsSimulatedBus))
    }

    func testMountMustBeARotation() {
        XCTAssertEqual(failure(minimal + #", "mount": [[1,0,0],[0,1,0],[0,0,-1]]}"#),
                       Failure("mount", .mirrorImage(value: "[[1,0,0],[0,1,0],[0,0,-1]]")))
        XCTAssertEqual(failure(minimal + #", "mount": [[1,0,0],[0,2,0],[0,0,1]]}"#),
                       Failure("mount", .notARotation(value: "[[1,0,0],[0,2,0],[0,0,1]]")))
        XCTAssertEqual(failure(minimal + #", "mount": [[1,0,0],[0,1,0]]}"#),
                       Failure("mount", .notAllowed(value: "[[1,0,0],[0,1,0]]", allowed: .mountShape)))
    }

    func testUnknownKeysListTheAllowedOnes() {
        XCTAssertEqual(failure(#"{"name": "b", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1", "acelRangeG": 2}}"#),
                       Failure("sensor.acelRangeG", .unknownKey(section: "sensor", allowed: ["chip", "bus", "address", "accelRangeG", "gyroRangeDps", "rateHz", "fifo"])))
        XCTAssertEqual(failure(minimal + #", "motors": {}}"#),
                       Failure("motors", .unknownKey(section: "", allowed: ["name", "sensor", "motor", "mount", "simulation", "shake", "interrupt"])))
    }

    func testMissingKeys() {
        XCTAssertEqual(failure(#"{"sensor": {"chip": "mpu6050", "bus": "/dev/i2c-1"}}"#),
                       Failure("name", .missing(.name)))
        XCTAssertEqual(failure(#"{"name": "b", "sensor": {"bus": "/dev/i2c-1"}}"#),
                       Failure("sensor.chip", .missing(.chip(choices: ["mpu6050", "adxl345", "lis3dh", "lsm9ds1", "icm20948"]))))
        XCTAssertEqual(failure(minimal + #", "motor": {"line": 17}}"#),
                       Failure("motor.chip", .missing(.gpioChip)))
    }

    func testMalformedJSONNamesLineAndColumn() {
        XCTAssertEqual(failure("{\n  \"name\": \"b\",\n  \"sensor\": }\n"),
                       Failure("", .invalidJSON(detail: "Invalid value", line: 3, column: 13)))
        guard case .invalidJSON = failure("{\"name\": \"b\"")?.problem else { return XCTFail("not valid JSON") }
        XCTAssertEqual(failure("[1, 2]"), Failure("", .topLevelNotObject(found: "[1,2]")))
    }

    func testMissingFileSaysSo() throws {
        let folder = try makeScratchFolder(self)
        XCTAssertThrowsError(try BoardDescription.load(path: folder + "/nope.json")) { error in
            XCTAssertEqual((error as? BoardFileError)?.problem, .noSuchFile)
            XCTAssertEqual((error as? BoardFileError)?.file, "\(folder)/nope.json")
            XCTAssertEqual((error as? BoardFileError)?.errno, ENOENT)
        }
    }

    func testBuiltInSimulatedBoard() {
        let b = BoardDescription.builtInSimulated()
        XCTAssertEqual(b.name, "simulated MPU-6050 board")
        XCTAssertEqual(b.source, "built-in")
        XCTAssertTrue(b.isSimulated)
        XCTAssertEqual(b.sensor.address, 0x68)
        XCTAssertEqual(b.simulation?.script, "flat")
        XCTAssertEqual(b.motor?.line.chip, "simulated")
        let a = BoardDescription.builtInSimulated(chip: .adxl345, script: "demo")
        XCTAssertEqual(a.name, "simulated ADXL345 board")
        XCTAssertEqual(a.sensor.address, 0x53)
        XCTAssertEqual(a.simulation?.script, "demo")
    }
}
