import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `tiltboard run` as a child process on simulated boards.
final class RunCommandTests: XCTestCase {
    /// A simulated board file in `folder` playing `script` without noise, logging the motor.
    private func writeBoard(_ folder: String, script: String) throws -> String {
        let path = folder + "/board.json"
        let json = """
        {"name": "run test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "address": "0x68", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17, "shakeEffect": "pulse:150"},
         "simulation": {"script": "\(script)", "noise": false, "motorLog": "\(folder)/motor.log"}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testJSONLinesFollowTheSchema() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, script: "tilt-left")
        let r = try CLIRunner.run(["run", "--board", board, "--json", "--duration", "2.5"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        // One line per tick of 2.5 s at 100 Hz, counting both ends.
        XCTAssertEqual(lines.count, 251)
        var previousT = -Double.infinity
        var xs: [Double] = []
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertEqual(Set(object.keys), ["t", "tilt", "control", "shake", "haptic"])
            let t = try XCTUnwrap(object["t"] as? Double)
            XCTAssertGreaterThan(t, previousT)
            previousT = t
            let tilt = try XCTUnwrap(object["tilt"] as? [String: Any])
            XCTAssertEqual(Set(tilt.keys), ["pitchDeg", "rollDeg", "trusted"])
            for key in ["pitchDeg", "rollDeg"] { XCTAssertTrue((-180...180).contains(try XCTUnwrap(tilt[key] as? Double))) }
            // A boolean, not a number; a gyro-aided estimate is always trusted.
            XCTAssertTrue(line.contains("\"trusted\":true}"), String(line))
            let control = try XCTUnwrap(object["control"] as? [String: Double])
            XCTAssertEqual(Set(control.keys), ["x", "y", "vx", "vy", "headingDeg"])
            let x = try XCTUnwrap(control["x"]), y = try XCTUnwrap(control["y"])
            XCTAssertTrue((-1...1).contains(x) && (-1...1).contains(y), String(line))
            XCTAssertTrue((-180...180).contains(try XCTUnwrap(control["headingDeg"])))
            xs.append(x)
            // Booleans, not numbers.
            XCTAssertTrue(line.contains("\"shake\":false") || line.contains("\"shake\":true"))
            XCTAssertTrue(line.contains("\"haptic\":false") || line.contains("\"haptic\":true"))
        }
        // Tilted left from 0.5 s: the marker heads left.
        XCTAssertLessThan(xs.last ?? 0, -0.3)
        XCTAssertTrue(r.stderr.contains("tiltboard: loop: ticks "), r.stderr)
    }

    func testOutputRateDecimatesByTime() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, script: "flat")
        let r = try CLIRunner.run(["run", "--board", board, "--json", "--duration", "2", "--rate", "500", "--output-rate", "10"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 20)
        let times = try lines.map {
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Double)
        }
        // Every 0.1 s of sample time, to within one 2 ms sample (and the 1 ms printed), whatever the sample rate.
        XCTAssertEqual(times, (0..<20).map { (times.first ?? 0) + Double($0) / 10 }, accuracy: 0.0025)
        XCTAssertTrue(r.stderr.contains("at 500 Hz (FIFO drained at 200 Hz)"), r.stderr)
    }

    func testHumanStatusShowsTheShakeAndTheMotor() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, script: "shake")
        let r = try CLIRunner.run(["run", "--board", board, "--duration", "2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 20)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("t ") && $0.contains(" pitch ") && $0.contains(" x ") })
        XCTAssertTrue(lines.contains { $0.contains("SHAKE") }, r.stdout)
        XCTAssertTrue(r.stderr.contains("tiltboard: motor on  at "), r.stderr)
        XCTAssertTrue(r.stderr.contains(" reconfigurations 0; cap trips 0\n"), r.stderr)
    }

    /// In real time: asserts only the order of events, the exit status and the motor off at the end.
    func testSIGTERMStopsCleanlyWithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, script: "shake")
        let child = try ChildProcess(["run", "--board", board, "--json"], environment: ["XDG_CONFIG_HOME": folder])
        // Wait for the motor to be on (the shake starts at 1 s), then stop it mid-effect.
        pollUntil { child.stdout.contains("\"haptic\":true") }
        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertTrue(child.waitForExit())
        let process = child.process, stdout = child.stdout, stderr = child.stderr
        XCTAssertTrue(stdout.contains("\"haptic\":true"), "the motor never ran")
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("tiltboard: loop: ticks "), stderr)
        // Every line complete: nothing cut in half by the stop.
        for line in stdout.split(separator: "\n") {
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), String(line))
        }
        let log = try String(contentsOfFile: folder + "/motor.log", encoding: .utf8)
        let entries = log.split(separator: "\n")
        XCTAssertTrue(entries.contains { $0.hasSuffix(" 1") }, log)
        XCTAssertTrue(entries.last?.hasSuffix(" 0") ?? false, "the motor line was left on: \(log)")
    }

    func testBadUDPDestinationIsAUsageError() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["run", "--duration", "0.1", "--udp", "nowhere"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 64)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: --udp nowhere: expected HOST:PORT"), r.stderr)
    }

    func testUDPDestinationsNobodyCanListenOnAreRefused() throws {
        let folder = try makeScratchFolder(self)
        for (destination, why) in [("127.0.0.1:0", "port 0 is no port anyone can listen on"),
                                   ("0.0.0.0:9999", "0.0.0.0 is no machine to send to"),
                                   ("[::]:9999", ":: is no machine to send to"),
                                   ("255.255.255.255:9999", "255.255.255.255 is a broadcast"),
                                   (String(repeating: "h", count: 100_000) + ":1", "--udp hhhh")] {
            let r = try CLIRunner.run(["run", "--duration", "0.1", "--udp", destination], environment: ["XDG_CONFIG_HOME": folder])
            XCTAssertEqual(r.status, 64, "\(destination.prefix(40)): \(r.stderr.prefix(300))")
            let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("tiltboard: error:") }
            XCTAssertEqual(errors.count, 1, String(r.stderr.prefix(300)))
            XCTAssertTrue(errors.first?.contains(why) ?? false, String(r.stderr.prefix(300)))
            // An error quotes at most 80 characters of what it was given.
            XCTAssertLessThan(errors.first?.count ?? .max, 300, "the line quotes the whole argument")
        }
    }
}
