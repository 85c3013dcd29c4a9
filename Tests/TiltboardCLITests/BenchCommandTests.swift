import Foundation
import XCTest

final class BenchCommandTests: XCTestCase {
    func testJSONReportOnTheSimulatedBoard() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--json", "--seconds", "0.2"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["simulated"] as? Bool, true)
        XCTAssertEqual(report["chip"] as? String, "MPU-6050")
        XCTAssertGreaterThan(report["pipelineSamplesPerSecond"] as? Double ?? 0, 0)
        XCTAssertGreaterThan(report["readAndPipelineSamplesPerSecond"] as? Double ?? 0, 0)
        XCTAssertGreaterThan(report["peakResidentBytes"] as? Double ?? 0, 1_048_576)
        let loops = try XCTUnwrap(report["loops"] as? [[String: Any]])
        XCTAssertEqual(loops.map { $0["rateHz"] as? Double }, [100, 500, 1000, 1000])
        XCTAssertEqual(loops.map { $0["fifo"] as? Bool }, [false, false, false, true])
        for loop in loops {
            for key in ["ticks", "missedTicks", "latenessP50Microseconds", "latenessP99Microseconds", "latenessMaxMicroseconds",
                        "samples", "transactionsPerSample", "bytesPerSample", "droppedSamples", "expectedSamples"] {
                XCTAssertNotNil(loop[key], "\(key) missing in \(loop)")
            }
            XCTAssertEqual(loop["allocationsPerTick"] as? Double, 0, "\(loop)")
            if loop["fifo"] as? Bool == false {
                XCTAssertEqual(loop["transactionsPerSample"] as? Double, 1)
                XCTAssertEqual(loop["bytesPerSample"] as? Double, 14)
            }
        }
        XCTAssertTrue(r.stderr.contains("tiltboard: loop at 1000 Hz with the FIFO"), r.stderr)
    }

    func testServeReportPairsTheLoopAloneWithTheLoopServed() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--serve", "--json", "--seconds", "0.3"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let alone = try XCTUnwrap(report["without"] as? [[String: Any]])
        let served = try XCTUnwrap(report["with"] as? [[String: Any]])
        XCTAssertEqual(alone.map { $0["clients"] as? Int }, [0, 0, 0, 0, 0])
        XCTAssertEqual(served.map { $0["clients"] as? Int }, [20, 20, 20, 20, 20])
        for run in served {
            XCTAssertGreaterThan(run["bytesReceived"] as? Int ?? 0, 0, "the reading clients got frames: \(run)")
            XCTAssertGreaterThan(run["ticks"] as? Int ?? 0, 0)
        }
        for key in ["medianP50Without", "medianP50With", "medianP99Without", "medianP99With"] {
            XCTAssertGreaterThan(report[key] as? Double ?? 0, 0, key)
        }
        XCTAssertEqual(r.stderr.components(separatedBy: "with 20 clients for 0.3 s").count, 6, r.stderr)
    }

    func testBoardsReportPairsOneBoardAloneWithTwoInOneLoop() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--players", "2", "--json", "--seconds", "0.3"], environment: ["XDG_CONFIG_HOME": folder],
                                  clock: .system)
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["rateHz"] as? Double, 200)
        XCTAssertEqual(report["boards"] as? Int, 2)
        let alone = try XCTUnwrap(report["alone"] as? [[String: Any]])
        let together = try XCTUnwrap(report["together"] as? [[String: Any]])
        XCTAssertEqual(alone.map { $0["boards"] as? Int }, [1, 1, 1])
        XCTAssertEqual(together.map { $0["boards"] as? Int }, [2, 2, 2])
        for run in alone + together {
            let ticks = try XCTUnwrap(run["ticks"] as? Int), missed = try XCTUnwrap(run["missedTicks"] as? Int)
            // 0.3 s at 200 Hz, counting both ends: every deadline run or counted as missed; on
            // the real clock the last one falls on the end of the run, which a loaded machine
            // may reach first.
            XCTAssertTrue((60...61).contains(ticks + missed), "\(run)")
            // Every board gives a sample at every tick run.
            XCTAssertEqual(run["samples"] as? Int, ticks * (run["boards"] as? Int ?? 0), "\(run)")
            for key in ["latenessP50Microseconds", "latenessP99Microseconds", "latenessMaxMicroseconds"] {
                XCTAssertGreaterThanOrEqual(run[key] as? Double ?? -1, 0, key)
            }
        }
        XCTAssertTrue(r.stderr.contains("tiltboard: pair 3 of 3: 2 boards in one loop at 200 Hz"), r.stderr)
        let text = try CLIRunner.run(["bench", "--players", "2", "--seconds", "0.1"], environment: ["XDG_CONFIG_HOME": folder], clock: .system)
        XCTAssertEqual(text.status, 0, text.stderr)
        let rows = text.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(rows.filter { $0.starts(with: ["pair"]) }.map { Array($0.prefix(4)) },
                       [["pair", "1", "alone", "1"], ["pair", "1", "together", "2"], ["pair", "2", "alone", "1"],
                        ["pair", "2", "together", "2"], ["pair", "3", "alone", "1"], ["pair", "3", "together", "2"]], text.stdout)
        XCTAssertTrue(text.stdout.contains("µs with 2 boards"), text.stdout)
        for arguments in [["bench", "--players", "1"], ["bench", "--players", "2", "--serve"]] {
            XCTAssertEqual(try CLIRunner.run(arguments, environment: ["XDG_CONFIG_HOME": folder]).status, 64)
        }
    }

    func testTextReport() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--seconds", "0.1"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "simulated MPU-6050 board (MPU-6050, simulated 400 kHz bus)")
        XCTAssertTrue(lines.contains { $0.hasPrefix("1000 Hz FIFO @200 Hz") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("pipeline (pre-generated samples, per CPU second): ") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("peak resident set: ") }, r.stdout)
    }

    /// Every chip's hold-still figures, on the simulated clock: seconds of real time, not minutes.
    func testHoldStillFiguresForEveryChip() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--hold-still", "--parts", "2", "--json"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let chips = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(chips.map { $0["chip"] as? String }, ["MPU-6050", "ADXL345", "LIS3DH", "LSM9DS1", "ICM-20948"])
        for chip in chips {
            XCTAssertEqual(chip["parts"] as? Int, 2)
            let results = try XCTUnwrap(chip["results"] as? [[String: Any]])
            XCTAssertEqual(results.map { $0["seed"] as? Int }, [1, 2])
            let still = try XCTUnwrap(chip["stillTiltDeg"] as? [String: Double])
            XCTAssertGreaterThanOrEqual(still["worst"] ?? .nan, still["median"] ?? .nan)
            XCTAssertLessThanOrEqual(still["worst"] ?? .nan, 0.3, "\(chip)")
            XCTAssertLessThanOrEqual((chip["stepTo80PercentSeconds"] as? [String: Double])?["worst"] ?? .nan, 0.3, "\(chip)")
        }
        let mpuWarm = try XCTUnwrap(chips[0]["warmUpDriftPerMin"] as? [String: Double])
        XCTAssertLessThanOrEqual(mpuWarm["worst"] ?? .nan, 0.02)
        XCTAssertTrue(r.stderr.contains("hold still: 2 worst-case ADXL345 parts"), r.stderr)

        let text = try CLIRunner.run(["bench", "--hold-still", "--parts", "1"], environment: ["XDG_CONFIG_HOME": folder])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("hold still, worst-case parts, median / worst:\nMPU-6050 (1 parts)\n  held still 60 s "),
                      text.stdout)
        XCTAssertEqual(try CLIRunner.run(["bench", "--hold-still", "--parts", "0"]).status, 64)
    }
}
