import Foundation
import XCTest

/// The loop commands on a simulated board whose bus fails (`simulation.faults`).
final class BusFaultCommandTests: XCTestCase {
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
        let r = try CLIRunner.run(["run", "--board", board, "--json", "--duration", "1.6"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lost = lines(r.stderr, containing: "tiltboard: sensor lost at ")
        let back = lines(r.stderr, containing: "tiltboard: sensor back at ")
        XCTAssertEqual(lost.count, 2, r.stderr)
        XCTAssertEqual(back.count, 2, r.stderr)
        XCTAssertTrue(lost.first?.contains("motor off, retrying for up to 10 s: I²C no device answers at 0x68 on simulated") == true, r.stderr)
        XCTAssertTrue(lost.last?.contains("reads 0x40, not the configured 0x01") == true, r.stderr)
        XCTAssertNotNil(back.first?.range(of: #"^tiltboard: sensor back at \d+\.\d\d s$"#, options: .regularExpression), r.stderr)
        XCTAssertNotNil(back.last?.range(of: #"^tiltboard: sensor back at \d+\.\d\d s \(reconfigured\)$"#, options: .regularExpression), r.stderr)
        let summary = try XCTUnwrap(lines(r.stderr, containing: "tiltboard: loop: ").first, r.stderr)
        XCTAssertNotNil(summary.range(of: #"ticks \d+, missed \d+"#, options: .regularExpression), summary)
        XCTAssertNotNil(summary.range(of: #"; bus errors [1-9]\d*, outages 2, reconfigurations 1$"#, options: .regularExpression), summary)
        // Samples on both sides of each outage, none made up (a reset chip reads all zeros).
        let ts = r.stdout.split(separator: "\n").compactMap { line -> Double? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["t"] as? Double
        }
        XCTAssertGreaterThan(ts.count, 100)
        XCTAssertGreaterThan(ts.last ?? 0, 1.3)
        XCTAssertTrue(r.stdout.split(separator: "\n").allSatisfy { $0.contains("\"tilt\":{\"pitchDeg\":0,\"rollDeg\":0}") }, "a flat board stays level")
    }

    func testRunGivesUpWithExit74AfterTheLimitWithTheMotorOff() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, faults: #"[{"at": 0.3, "kind": "unplug", "seconds": 60}]"#)
        let r = try CLIRunner.run(["run", "--board", board, "--give-up-after", "0.5"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 74, r.stderr)
        let stderr = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines(r.stderr, containing: "sensor lost at ").count, 1, r.stderr)
        XCTAssertTrue(lines(r.stderr, containing: "retrying for up to 0.5 s").count == 1, r.stderr)
        XCTAssertNotNil(stderr.dropLast().last?.range(of: #"^tiltboard: loop: ticks \d+, missed \d+.*; bus errors \d+, outages 1, reconfigurations 0$"#,
                                                      options: .regularExpression), r.stderr)
        XCTAssertTrue(stderr.last?.hasPrefix("tiltboard: error: no sample from the MPU-6050 at 0x68 on simulated for 0.5 s, giving up; last error: I²C no device answers at 0x68 on simulated (register 0x75, simulated: unplugged)") == true, r.stderr)
        XCTAssertFalse(r.stderr.contains("Fatal error"))
        let log = try String(contentsOfFile: folder + "/motor.log", encoding: .utf8)
        XCTAssertTrue(log.split(separator: "\n").last?.hasSuffix(" 0") ?? true, log)
    }

    func testRecordKeepsWhatItHadWhenItGivesUp() throws {
        let folder = try makeScratchFolder(self)
        let board = try writeBoard(folder, faults: #"[{"at": 0.4, "kind": "eio", "seconds": 60}]"#)
        let out = folder + "/trace.csv"
        let r = try CLIRunner.run(["record", "--board", board, "--out", out, "--give-up-after", "0.3"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 74, r.stderr)
        XCTAssertTrue(r.stderr.contains("last error: I²C bus error on simulated (address 0x68, register 0x75, errno 5 Input/output error (simulated))"), r.stderr)
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.first, "t,ax,ay,az,gx,gy,gz")
        XCTAssertGreaterThan(rows.count, 10, "the samples before the failure are kept")
    }

    func testGiveUpAfterIsRangeChecked() throws {
        let folder = try makeScratchFolder(self)
        for value in ["0", "-1", "nan", "1e9"] {
            let r = try CLIRunner.run(["shake", "--give-up-after", value, "--duration", "1"], environment: ["XDG_CONFIG_HOME": folder])
            XCTAssertEqual(r.status, 64, "\(value): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("--give-up-after"), r.stderr)
        }
    }
}
