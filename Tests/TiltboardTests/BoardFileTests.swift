import Foundation
import Tiltboard
import XCTest
import TiltboardCore
import TiltboardDrivers

final class BoardFileTests: XCTestCase {
    private func parse(_ text: String, source: String = "Boards/x.json") throws -> BoardDescription {
        try BoardDescription.parse(json: Array(text.utf8), source: source)
    }

    /// The one-line message a bad board file gives.
    private func message(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let board = try parse(text)
            XCTFail("parsed without error: \(board)", file: file, line: line)
            return ""
        } catch let error as BoardFileError {
            XCTAssertFalse(error.description.contains("\n"), "message spans lines", file: file, line: line)
            return error.description
        } catch {
            XCTFail("unexpected error type \(error)", file: file, line: line)
            return ""
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
        XCTAssertThrowsError(try parse(minimal + #", "motor": {"chip": "pinctrl-bcm2711", "line": 17, "shakeEffect": "pulse:x"}}"#)) { error in
            XCTAssertEqual((error as? BoardFileError)?.key, "motor.shakeEffect")
            XCTAssertEqual((error as? BoardFileError)?.effect, HapticEffectError(.notANumber(.pulseLength, text: "x")))
        }
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
        XCTAssertThrowsError(try parse(motor + #", "maxOn": 1}}"#)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("maxOnMs, minRestMs)"), message)
            XCTAssertFalse(message.contains("Seconds"), message)
        }
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
            XCTAssertEqual((error as? BoardFileError)?.description,
                           "board file \(folder)/nope.json: no such file")
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
