import Foundation
import Tiltboard
@testable import TiltboardCLI
import XCTest
import TiltboardCore
import TiltboardDrivers
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `tiltboard haptics`, run as a child process on simulated boards whose motor changes are logged.
final class HapticsCommandTests: XCTestCase {
    func testPlaysAPatternAndExitsWhenItEnds() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let r = try CLIRunner.run(["haptics", "--board", board.path, "--pattern", "100,50,100"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let log = try MotorLogFile.read(board.log)
        XCTAssertEqual(log.map(\.level), [1, 0, 1, 0])
        // On the virtual clock every edge is exactly on time (the log keeps microseconds).
        XCTAssertEqual(log.map { $0.t - log[0].t }, [0, 0.100, 0.150, 0.250], accuracy: 1e-6)
        XCTAssertEqual(r.stderr.components(separatedBy: "tiltboard: motor on ").count - 1, 2, r.stderr)
        XCTAssertEqual(r.stderr.components(separatedBy: "tiltboard: motor off at").count - 1, 2, r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    /// 1.5 s on with 1 ms gaps, four times, on the virtual clock: the gaps are no rest, so the
    /// motor rests twice for the default 0.5 s, with a warning each time, and no stretch holds more than 2 s.
    func testOneMillisecondGapsDoNotResetTheOnTimeCap() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let r = try CLIRunner.run(["haptics", "--board", board.path, "--pattern", "1500,1", "--repeat", "4"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 1500 + 500 ms, rest; 500 + 1500 ms, rest; the last 1001 ms.
        XCTAssertEqual(try MotorLogFile.relative(board.log),
                       ["0 1", "1500 0", "1501 1", "2001 0", "2501 1", "3001 0", "3002 1", "4502 0", "5002 1", "6003 0"])
        let warning = "tiltboard: warning: the motor was switched off after 2.0 s on without a break (motor.maxOnMs)\n"
        XCTAssertEqual(r.stderr.components(separatedBy: warning).count - 1, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: motor off at 2.001 s\n" + warning + "tiltboard: motor on  at 2.501 s\n"), r.stderr)
    }

    /// The board's own values: 0.3 s on, then 0.2 s of rest, and the 1 s pulse resumes.
    func testTheBoardsCapKeysRestALongPulse() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder, motorExtras: #", "maxOnSeconds": 0.3, "minRestSeconds": 0.2"#)
        let r = try CLIRunner.run(["haptics", "--board", board.path, "--pattern", "1000"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try MotorLogFile.relative(board.log), ["0 1", "300 0", "500 1", "800 0"])
        XCTAssertEqual(r.stderr.components(separatedBy: "switched off after 0.3 s on without a break (motor.maxOnMs)").count - 1, 2, r.stderr)
    }

    func testABadCapKeyIsADataError() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder, motorExtras: #", "minRestSeconds": 0.01"#)
        let r = try CLIRunner.run(["haptics", "--board", board.path])
        XCTAssertEqual(r.status, 65, r.stderr)
        XCTAssertEqual(r.stderr, "tiltboard: error: board file \(board.path): motor.minRestSeconds: 0.01 is not allowed (use 0.05 to 60 seconds)\n")
        XCTAssertEqual(try MotorLogFile.read(board.log).count, 0)
    }

    /// A signal is a clean stop: the motor is forced off, the line released, and the exit status is 0.
    func testATerminationSignalMidEffectLeavesTheMotorOffAndExitsZero() throws {
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            let folder = try makeScratchFolder(self)
            let board = try SimBoardFile.write(in: folder)
            let child = try ChildProcess(["haptics", "--board", board.path, "--pattern", "1500,100", "--repeat", "0"])
            XCTAssertTrue(MotorLogFile.waitForLevel(1, in: board.log), "signal \(signal): the motor never went on")
            kill(child.process.processIdentifier, signal)
            let exited = child.waitForExit()
            XCTAssertTrue(exited, "signal \(signal): still running 60 s after the signal")
            guard exited else { continue }
            XCTAssertEqual(child.process.terminationReason, .exit, "signal \(signal)")
            XCTAssertEqual(child.process.terminationStatus, 0, "signal \(signal): \(child.stderr)")
            let log = try MotorLogFile.read(board.log)
            XCTAssertEqual(log.last?.level, 0, "signal \(signal): the motor was left on: \(log)")
            XCTAssertTrue(child.stderr.contains("stopped by signal \(signal); motor off"), child.stderr)
        }
    }

    func testABadEffectOrPatternIsAUsageErrorListingThePresets() throws {
        let folder = try makeScratchFolder(self)
        let board = try SimBoardFile.write(in: folder)
        let effect = try CLIRunner.run(["haptics", "--board", board.path, "--effect", "rumble"])
        XCTAssertEqual(effect.status, 64)
        XCTAssertTrue(effect.stderr.contains("tiltboard: error: unknown effect 'rumble': use one of tick, click, double-click, buzz, alarm or pulse:MS"), effect.stderr)
        let pattern = try CLIRunner.run(["haptics", "--board", board.path, "--pattern", "100,x"])
        XCTAssertEqual(pattern.status, 64)
        XCTAssertTrue(pattern.stderr.contains("off-time #1 'x'"), pattern.stderr)
        XCTAssertTrue(pattern.stderr.contains("a pattern looks like 200,100,200; or use --effect with one of tick, click, double-click, buzz, alarm"), pattern.stderr)
        for args in [["--effect", "click", "--pattern", "100"], ["--strength", "1.5"], ["--repeat", "-1"], ["--carrier", "0"]] {
            let r = try CLIRunner.run(["haptics", "--board", board.path] + args)
            XCTAssertEqual(r.status, 64, "\(args): \(r.stderr)")
        }
        // Nothing reached the motor.
        XCTAssertEqual(try MotorLogFile.read(board.log).count, 0)
    }

    func testABoardWithoutAMotorIsUnavailable() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/no-motor.json"
        try #"{"name": "bare", "sensor": {"chip": "adxl345", "bus": "simulated"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["haptics", "--board", path])
        XCTAssertEqual(r.status, 69)
        XCTAssertTrue(r.stderr.contains("board bare has no motor: add a \"motor\" section"), r.stderr)
    }

    /// On a machine without GPIO (this one), a real board's motor fails with the chip lookup's
    /// message — without the sensor being opened first.
    func testARealMotorOnAMachineWithoutGPIOSaysWhichChipsExist() throws {
        let chips = (try? FileManager.default.contentsOfDirectory(atPath: "/dev"))?.filter { $0.hasPrefix("gpiochip") } ?? []
        try XCTSkipUnless(chips.isEmpty, "this machine has GPIO chips")
        let folder = try makeScratchFolder(self)
        let path = folder + "/pi.json"
        try #"{"name": "pi", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-77"}, "motor": {"chip": "pinctrl-bcm2711", "line": 17}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["haptics", "--board", path])
        XCTAssertEqual(r.status, 69, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: error: GPIO chip pinctrl-bcm2711 not found: no GPIO chips found in /dev"), r.stderr)
    }

    func testRequestsBecomeTheRightEffects() throws {
        XCTAssertEqual(try HapticsRequest.effect(name: "click", pattern: nil, repeat: 1, strength: 1),
                       .waveform(HapticWaveform(timingsMs: [20], repeatCount: 1)))
        // Repeated single pulses get a gap, or they would merge into one.
        XCTAssertEqual(try HapticsRequest.effect(name: "click", pattern: nil, repeat: 3, strength: 0.5),
                       .waveform(HapticWaveform(timingsMs: [20, 100], repeatCount: 3, strength: 0.5)))
        XCTAssertEqual(try HapticsRequest.effect(name: "alarm", pattern: nil, repeat: 2, strength: 1),
                       .waveform(HapticWaveform(timingsMs: [200, 200], repeatCount: 10)))
        XCTAssertEqual(try HapticsRequest.effect(name: "pulse:150", pattern: nil, repeat: 0, strength: 1),
                       .waveform(HapticWaveform(timingsMs: [150, 100], repeatCount: nil)))
        XCTAssertEqual(try HapticsRequest.effect(name: "ignored", pattern: "300,100,50", repeat: 0, strength: 0.25),
                       .waveform(HapticWaveform(timingsMs: [300, 100, 50], repeatCount: nil, strength: 0.25)))
        XCTAssertThrowsError(try HapticsRequest.effect(name: "click", pattern: "0,100", repeat: 1, strength: 1)) { error in
            XCTAssertEqual(exitStatus(for: error)?.code, 64)
        }
    }

    func testGPIOFailuresMapToTheirExitCodes() {
        XCTAssertEqual(exitStatus(for: GPIOError(.noChips(spec: "c", directory: "/dev")))?.code, 69)
        XCTAssertEqual(exitStatus(for: GPIOError(.lineBusy(line: "17", consumer: nil)))?.code, 69)
        XCTAssertEqual(exitStatus(for: GPIOError(.noLineOffset(99, chip: GPIOChipSummary(name: "gpiochip0", label: "l", lineCount: 58))))?.code, 69)
        XCTAssertEqual(exitStatus(for: GPIOError(.permissionDenied(path: "/dev/gpiochip0")))?.code, 77)
        XCTAssertEqual(exitStatus(for: GPIOError(.wakeStop(errno: 24)))?.code, 74)
        XCTAssertEqual(exitStatus(for: GPIOError(.lineBusy(line: "line 17", consumer: "pigpio")))?.message,
                       "GPIO line 17 is in use by \"pigpio\"; stop that program (see `gpioinfo`), remove the overlay that claims the pin, or wire the motor to another line")
    }
}

/// A simulated board file whose motor changes go to `motor.log` in the same folder.
struct SimBoardFile {
    var path: String
    var log: String

    static func write(in folder: String, script: String = "flat", motorExtras: String = "", shake: String? = nil) throws -> SimBoardFile {
        let path = folder + "/board.json", log = folder + "/motor.log"
        let shakeKey = shake.map { #", "shake": \#($0)"# } ?? ""
        let json = """
        {"name": "simulated test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated"},
         "motor": {"chip": "simulated", "line": 17\(motorExtras)},
         "simulation": {"script": "\(script)", "motorLog": "\(log)"}\(shakeKey)}
        """
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return SimBoardFile(path: path, log: log)
    }
}

/// The `<seconds> <0|1>` lines a simulated motor appends.
enum MotorLogFile {
    static func read(_ path: String) throws -> [(t: Double, level: Int)] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let t = Double(parts[0]), let level = Int(parts[1]) else {
                throw CLIError(message: "bad motor log line '\(line)'", category: .invalidData)
            }
            return (t, level)
        }
    }

    /// `<ms since the first change> <0|1>` for each line.
    static func relative(_ path: String) throws -> [String] {
        let log = try read(path)
        return log.map { "\(Int((($0.t - log[0].t) * 1000).rounded())) \($0.level)" }
    }

    /// Polls until a line with `level` appears (a real-time child); false after `timeout` seconds.
    static func waitForLevel(_ level: Int, in path: String, timeout: Double = 60) -> Bool {
        pollUntil(timeout: timeout) { (try? read(path))?.contains(where: { $0.level == level }) == true }
    }
}
