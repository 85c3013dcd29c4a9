import Foundation
import XCTest

/// The loop commands on a simulated board whose bus fails (`simulation.faults`), on the virtual
/// clock: the board opens at 0 s and the MPU-6050's configuration takes 0.16 s, so the loop's
/// times are the faults' less 0.16 s.
final class BusFaultCommandTests: XCTestCase {
    private func environment(_ folder: String) -> [String: String] {
        ["XDG_CONFIG_HOME": folder, "TILTBOARD_CLOCK": "virtual"]
    }

    /// A noise-free simulated MPU-6050 board in `folder` with `faults`, logging the motor.
    private func writeBoard(_ folder: String, script: String = "flat", faults: String) throws -> String {
        let path = folder + "/board.json"
        let json = """
        {"name": "flaky bus board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"script": "\(script)", "noise": false, "motorLog": "\(folder)/motor.log", "faults": \(faults)}}
        """
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func lines(_ text: String, containing part: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.contains(part) }
    }

    func testRunRidesOutANackAndAResetAndCountsThem() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, faults: #"[{"at": 0.4, "kind": "nack", "seconds": 0.2}, {"at": 0.9, "kind": "reset"}]"#)
        let r = try CLIRunner.run(["run", "--board", board, "--json", "--duration", "1.6"], environment: environment(folder))
        XCTAssertEqual(r.status, 0, r.stderr)
        let notes = lines(r.stderr, containing: "tiltboard: sensor ")
        XCTAssertEqual(notes.count, 4, r.stderr)
        guard notes.count == 4 else { return }
        XCTAssertTrue(notes[0].hasPrefix("tiltboard: sensor lost at 0.24 s, motor off, retrying for up to 10 s: I²C no device answers at 0x68 on simulated (register 0x3b, errno 121 Remote I/O error (simulated)): check the wiring"), notes[0])
        XCTAssertEqual(notes[1], "tiltboard: sensor back at 0.44 s")
        XCTAssertEqual(notes[2], "tiltboard: sensor lost at 0.74 s, motor off, retrying for up to 10 s: register 0x6b of the chip at 0x68 on simulated reads 0x40, not the configured 0x01: the chip reset (a power glitch or brown-out) and lost its configuration")
        XCTAssertEqual(notes[3], "tiltboard: sensor back at 0.90 s (reconfigured)")
        let summary = try XCTUnwrap(lines(r.stderr, containing: "tiltboard: loop: ").first, r.stderr)
        // 161 deadlines: 15 spent reconfiguring; no sample in the 20 ticks of the NACK, the tick
        // bringing the chip back, nor the one that found the reset.
        XCTAssertTrue(summary.hasPrefix("tiltboard: loop: ticks 146, missed 15 "), summary)
        XCTAssertTrue(summary.hasSuffix("; 124 samples; bus errors 22, outages 2, reconfigurations 1; cap trips 0"), summary)
        let ts = r.stdout.split(separator: "\n").compactMap { line -> Double? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"] as? Double
        }
        XCTAssertEqual(ts.count, 124)
        XCTAssertFalse(ts.contains { ($0 > 0.235 && $0 < 0.445) || ($0 > 0.735 && $0 < 0.895) }, "\(ts)")
        // None made up: a flat board stays level throughout (a reset chip's zeros would tip it).
        XCTAssertTrue(r.stdout.split(separator: "\n").allSatisfy { $0.contains("\"tilt\":{\"pitchDeg\":0,\"rollDeg\":0,\"trusted\":true}") }, "a flat board stays level")
    }

    func testRunGivesUpWithExit74AfterTheLimitWithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, faults: #"[{"at": 0.3, "kind": "unplug", "seconds": 60}]"#)
        let r = try CLIRunner.run(["run", "--board", board, "--give-up-after", "0.5"], environment: environment(folder))
        XCTAssertEqual(r.status, 74, r.stderr)
        let stderr = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines(r.stderr, containing: "sensor lost at ").count, 1, r.stderr)
        XCTAssertTrue(lines(r.stderr, containing: "sensor lost at 0.14 s, motor off, retrying for up to 0.5 s: ").count == 1, r.stderr)
        // Lost at 0.14 s, given up at 0.64 s: 65 ticks, 14 with a sample; 3 attempts, then one a tick.
        XCTAssertTrue(stderr.dropLast().last?.hasPrefix("tiltboard: loop: ticks 65, missed 0,") == true, r.stderr)
        XCTAssertTrue(stderr.dropLast().last?.hasSuffix("; 14 samples; bus errors 53, outages 1, reconfigurations 0; cap trips 0") == true, r.stderr)
        XCTAssertTrue(stderr.last?.hasPrefix("tiltboard: error: no sample from the MPU-6050 at 0x68 on simulated for 0.5 s, giving up; last error: I²C no device answers at 0x68 on simulated (register 0x75, simulated: unplugged)") == true, r.stderr)
        // The tool adds the fix for the last failure after it.
        XCTAssertTrue(stderr.last?.hasSuffix("(register 0x75, simulated: unplugged): check the wiring (SDA, SCL, 3V3, GND) and the address pin (MPU-6050 AD0: 0x68 low / 0x69 high; ADXL345 ALT ADDRESS: 0x53 low / 0x1D high; LIS3DH SDO/SA0: 0x18 low / 0x19 high; LSM9DS1 SDO_A/G: 0x6A low / 0x6B high; ICM-20948 AD0: 0x68 low / 0x69 high), then try `tiltboard probe`") == true, r.stderr)
        XCTAssertFalse(r.stderr.contains("Fatal error"))
        let log = try String(contentsOfFile: folder + "/motor.log", encoding: .utf8)
        XCTAssertTrue(log.split(separator: "\n").last?.hasSuffix(" 0") ?? true, log)
    }

    func testRecordKeepsWhatItHadWhenItGivesUp() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, faults: #"[{"at": 0.4, "kind": "eio", "seconds": 60}]"#)
        let out = folder + "/trace.csv"
        let r = try CLIRunner.run(["record", "--board", board, "--out", out, "--give-up-after", "0.3"],
                                  environment: environment(folder))
        XCTAssertEqual(r.status, 74, r.stderr)
        XCTAssertTrue(r.stderr.contains("last error: I²C bus error on simulated (address 0x68, register 0x75, errno 5 Input/output error (simulated))"), r.stderr)
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.first, "t,ax,ay,az,gx,gy,gz")
        XCTAssertEqual(rows.count, 1 + 24, "the samples before the failure are kept")
    }

    func testGiveUpAfterIsRangeChecked() throws {
        let folder = try makeScratchFolder(self)
        for value in ["0", "-1", "nan", "1e9"] {
            let r = try CLIRunner.run(["shake", "--give-up-after", value, "--duration", "1"], environment: environment(folder))
            XCTAssertEqual(r.status, 64, "\(value): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--give-up-after"), r.stderr)
        }
    }
}
