import Foundation
import XCTest

/// The LIS3DH through the commands, on simulated boards: `read`, `calibrate`, `shake`, `run`
/// and wake on motion.
final class LIS3DHCommandTests: XCTestCase {
    private func board(_ folder: String, _ simulation: String = #"{"script": "flat", "noise": true, "seed": 5}"#,
                       extra: String = "") throws -> String {
        let path = folder + "/lis3dh.json"
        try """
        {"name": "lis3dh test", "sensor": {"chip": "lis3dh", "bus": "simulated"}\(extra), "simulation": \(simulation)}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Mean of `accel` over the JSON lines of `read`.
    private func meanAccel(_ stdout: String) throws -> (mean: [Double], count: Int) {
        var sum = [0.0, 0.0, 0.0], n = 0
        for line in stdout.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let accel = try XCTUnwrap(object["accel"] as? [Double])
            XCTAssertNil(object["gyro"], "no gyroscope")
            XCTAssertNil(object["tempC"], "no absolute temperature")
            for axis in 0..<3 { sum[axis] += accel[axis] }
            n += 1
        }
        return (sum.map { $0 / Double(Swift.max(n, 1)) }, n)
    }

    func testReadOnTheMinimalBoardFileReadsOneGFlat() throws {
        // Only chip and bus: address 0x18, ±2 g, 100 Hz by default; a typical part (zero-g
        // within the data sheet's ±40 mg) lying flat.
        let folder = try makeScratchFolder(self)
        let path = folder + "/minimal.json"
        try #"{"name": "minimal", "sensor": {"chip": "lis3dh", "bus": "simulated"}}"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try CLIRunner.run(["read", "--board", path, "--count", "50", "--json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let (mean, n) = try meanAccel(r.stdout)
        XCTAssertEqual(n, 50)
        XCTAssertEqual(mean, [0, 0, 1], accuracy: 0.045)
    }

    func testWriteChipIsRefusedBeforeTheCaptureAndNothingIsSaved() throws {
        let folder = try makeScratchFolder(self)
        let profile = folder + "/p.json"
        let r = try CLIRunner.run(["calibrate", "--sensor", "--write-chip", "--yes", "--board", try board(folder),
                                   "--profile", profile])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").last.map(String.init),
                       "tiltboard: error: --write-chip: the LIS3DH has no offset registers; calibrate with --sensor alone, the profile applies the offsets")
        XCTAssertFalse(r.stderr.contains("captured"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: profile))
    }

    func testSensorCalibrationInSoftwareThenReadsIdeal() throws {
        let folder = try makeScratchFolder(self)
        let path = try board(folder, #"{"script": "flat", "noise": true, "seed": 5, "zeroGOffsetMg": [40, -30, 60], "scaleError": [0.02, -0.02, 0.02]}"#)
        let profile = folder + "/p.json"
        let cal = try CLIRunner.run(["calibrate", "--sensor", "--yes", "--board", path, "--profile", profile])
        XCTAssertEqual(cal.status, 0, cal.stderr)
        XCTAssertTrue(cal.stdout.contains("in chip          no"), cal.stdout)
        let read = try CLIRunner.run(["read", "--board", path, "--profile", profile, "--count", "100", "--json"])
        XCTAssertEqual(read.status, 0, read.stderr)
        let (mean, n) = try meanAccel(read.stdout)
        XCTAssertEqual(n, 100)
        XCTAssertEqual(mean, [0, 0, 1], accuracy: 0.003)
    }

    func testShakeAndRunWork() throws {
        let folder = try makeScratchFolder(self)
        let shaken = try board(folder, #"{"script": "shake", "noise": true, "seed": 5}"#)
        let shake = try CLIRunner.run(["shake", "--board", shaken, "--duration", "4", "--mute", "--json"],
                                      environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(shake.status, 0, shake.stderr)
        XCTAssertTrue(shake.stdout.contains(#""event":"start""#), shake.stdout)
        let run = try CLIRunner.run(["run", "--board", try board(folder), "--duration", "2", "--json"],
                                    environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertGreaterThanOrEqual(run.stdout.split(separator: "\n").count, 190, run.stderr)
        XCTAssertTrue(run.stderr.contains("bus errors 0, outages 0, reconfigurations 0"), run.stderr)
    }

    func testWakeOnMotionSleepsAndWakesOnInterruptGenerator1() throws {
        let folder = try makeScratchFolder(self)
        let path = try board(folder, #"{"script": "\#(packageRoot)/Boards/scripts/rest-shake-rest.json", "noise": true, "seed": 42}"#,
                             extra: #", "interrupt": {"chip": "simulated", "line": 4}"#)
        let r = try CLIRunner.run(["shake", "--wake-on-motion", "--board", path, "--duration", "5.6", "--mute"],
                                  environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("tiltboard: still for 2.0 s: sleeping at 2.00 s until motion"), r.stderr)
        XCTAssertNotNil(r.stderr.range(of: #"woke on motion at 3\.\d\d s"#, options: .regularExpression), r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("shake at "), r.stdout)
    }
}
