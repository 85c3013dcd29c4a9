import Foundation
import XCTest
import TiltboardCommands
import TiltboardDrivers
@testable import TiltboardCLI

/// `bench`'s bus table: clocks per sample of what it counted, the shares of a 100 and a 400 kHz
/// bus, `--boards N` on one bus, and the board file's own rate as planned.
final class BenchBusShareCommandTests: XCTestCase {
    func testBenchReportsBusTimeAndSharesForSeveralBoardsOnOneBus() throws {
        let folder = try makeScratchFolder(self)
        let board = packageRoot + "/Boards/simulated-mpu6050.json"
        let r = try CLIRunner.run(["bench", "--board", board, "--seconds", "0.1", "--boards", "2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        // The earlier lines as before; the table after them.
        XCTAssertEqual(lines.first, "simulated MPU-6050 board (MPU-6050, simulated 400 kHz bus)")
        let title = try XCTUnwrap(lines.firstIndex(of: "bus time per sample (I²C framing of the transactions counted), share for 2 boards on one bus:"), r.stdout)
        XCTAssertTrue(lines[..<title].contains { $0.hasPrefix("peak resident set: ") }, r.stdout)
        XCTAssertEqual(lines[title + 1], "run                     clocks/sample  µs @100 kHz  µs @400 kHz  share @100 kHz  share @400 kHz")
        // 100 Hz × 156 clocks (a 14-byte burst) and the once-a-second 1-byte check (39 clocks), twice.
        XCTAssertEqual(lines.last, "board file: 100 Hz read         156.0       1560.0        390.0          31.3 %           7.8 %")
        XCTAssertEqual(lines[(title + 2)...].map { String($0.prefix(24)).trimmingCharacters(in: .whitespaces) },
                       ["100 Hz read", "500 Hz read", "1000 Hz read", "1000 Hz FIFO @200 Hz", "board file: 100 Hz read"])

        let j = try CLIRunner.run(["bench", "--board", board, "--seconds", "0.1", "--boards", "2", "--json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(j.status, 0, j.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["boardsOnBus"] as? Int, 2)
        let planned = try XCTUnwrap(report["boardFileBus"] as? [String: Any])
        XCTAssertEqual(planned["busClocksPerSample"] as? Double, 156)
        XCTAssertEqual(try XCTUnwrap(planned["busShareAt100kHz"] as? Double), 2 * (100 * 156 + 39) / 100_000, accuracy: 1e-12)
        for loop in try XCTUnwrap(report["loops"] as? [[String: Any]]) {
            let clocks = try XCTUnwrap(loop["busClocksPerSample"] as? Double)
            let rate = try XCTUnwrap(loop["rateHz"] as? Double)
            if loop["fifo"] as? Bool == false {
                // One 14-byte burst a sample; a health check now and then adds a little.
                XCTAssertGreaterThanOrEqual(clocks, 156, "\(loop)")
                XCTAssertLessThan(clocks, 157, "\(loop)")
            } else {
                // 5 samples a drain: the count (48 clocks) and 70 bytes (660 clocks).
                XCTAssertEqual(clocks, 708.0 / 5, accuracy: 3, "\(loop)")
            }
            XCTAssertEqual(try XCTUnwrap(loop["busShareAt100kHz"] as? Double), 2 * rate * clocks / 100_000, accuracy: 1e-9)
            XCTAssertEqual(try XCTUnwrap(loop["busShareAt400kHz"] as? Double), 2 * rate * clocks / 400_000, accuracy: 1e-9)
        }
        XCTAssertEqual(try CLIRunner.run(["bench", "--boards", "0"]).status, 64)
        XCTAssertTrue(try CLIRunner.run(["bench", "--boards", "113"]).stderr.contains("--boards must be 1 to 112, got 113"))
    }

    func testOneBoardsBenchJSONHasNoBoardCount() throws {
        let folder = try makeScratchFolder(self)
        let j = try CLIRunner.run(["bench", "--seconds", "0.1", "--json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(j.status, 0, j.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        XCTAssertNil(report["boardsOnBus"])
        let planned = try XCTUnwrap(report["boardFileBus"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(planned["busShareAt400kHz"] as? Double), (100 * 156 + 39) / 400_000, accuracy: 1e-12)
    }
}
