import Foundation
import Tiltboard
import XCTest
import TiltboardSimulator

final class RecordCommandTests: XCTestCase {
    func testRecordsATraceTheSimulatorReadsAndRefusesToOverwrite() throws {
        let folder = try makeScratchFolder(self)
        let out = folder + "/rec.csv"
        let r = try CLIRunner.run(["record", "--out", out, "--duration", "1"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("t,ax,ay,az,gx,gy,gz\n"))
        let trace = try TraceMotion(csv: text)
        // Every tick of 1 s at 100 Hz, counting both ends.
        XCTAssertEqual(trace.times.count, 101)
        // The demo starts flat: about 1 g up.
        XCTAssertEqual(trace.accel[0].z, 1, accuracy: 0.1)
        XCTAssertTrue(r.stderr.contains("recorded \(trace.times.count) samples to \(out)"), r.stderr)

        let again = try CLIRunner.run(["record", "--out", out, "--duration", "0.2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(again.status, 73)
        XCTAssertTrue(again.stderr.contains("tiltboard: error: \(out) already exists: choose another name or pass --force"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), text)

        let forced = try CLIRunner.run(["record", "--out", out, "--duration", "0.2", "--force"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try TraceMotion(csv: try String(contentsOfFile: out, encoding: .utf8)).times.count, 21)
    }
}
