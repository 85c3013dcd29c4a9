import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif
import TiltboardTestSupport

/// `--fast`: a recorded trace replayed on the virtual clock, complete and the same on every run.
/// These tests run without `TILTBOARD_CLOCK`, so the option alone picks the clock.
final class FastReplayTests: XCTestCase {
    /// Samples in a 30 s replay at 100 Hz, counting both ends.
    private let samples = 3001

    /// A 40 s trace at 100 Hz with gyro: level, a roll to ±30° and back over 5 s, then two 1 s
    /// shakes (4 Hz, 2 g along x) at 12 s and 20 s, level again. Returns the board file replaying it.
    private func traceBoard(_ folder: String) throws -> String {
        var csv = "t,ax,ay,az,gx,gy,gz\n"
        for k in 0...4000 {
            let t = Double(k) / 100
            var roll = 0.0, rollRate = 0.0, shakeX = 0.0
            if t >= 5 && t < 10 {
                let w = 2 * Double.pi / 5
                roll = 30 * sin(w * (t - 5))
                rollRate = 30 * w * cos(w * (t - 5))
            }
            if (t >= 12 && t < 13) || (t >= 20 && t < 21) { shakeX = 2 * sin(2 * Double.pi * 4 * t) }
            let r = roll * Double.pi / 180
            csv += String(format: "%.2f,%.5f,%.5f,%.5f,%.3f,0.000,0.000\n", t, shakeX, sin(r), cos(r), rollRate)
        }
        try csv.write(toFile: folder + "/trace.csv", atomically: true, encoding: .utf8)
        let board = folder + "/board.json"
        try """
        {"name": "replay test board",
         "sensor": {"chip": "mpu6050", "bus": "simulated", "accelRangeG": 16, "gyroRangeDps": 2000, "rateHz": 100},
         "motor": {"chip": "simulated", "line": 17},
         "simulation": {"trace": "\(folder)/trace.csv", "noise": false}}
        """.write(toFile: board, atomically: true, encoding: .utf8)
        return board
    }

    private func environment(_ folder: String) -> [String: String] { ["XDG_CONFIG_HOME": folder] }

    /// The `t` of every line, failing on a line that is not a JSON object with one.
    private func times(_ stdout: String) throws -> [Double] {
        try stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try XCTUnwrap((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["t"] as? Double, String($0))
        }
    }

    private func assertStrictlyIncreasing(_ times: [Double], file: StaticString = #filePath, line: UInt = #line) {
        for (a, b) in zip(times, times.dropFirst()) where !(b > a) {
            return XCTFail("t goes from \(a) to \(b)", file: file, line: line)
        }
    }

    /// The sample count of the totals line: `…; 3001 samples; …`.
    private func sampleCount(_ stderr: String) throws -> Int {
        let range = try XCTUnwrap(stderr.range(of: #"; \d+ samples"#, options: .regularExpression), stderr)
        return try XCTUnwrap(Int(stderr[range].filter(\.isNumber)))
    }

    func testRunWritesOneLinePerSampleTheSameOnEveryRun() throws {
        let folder = try makeScratchFolder(self)
        let board = try traceBoard(folder)
        let arguments = ["run", "--board", board, "--json", "--duration", "30", "--fast"]
        let first = try CLIRunner.run(arguments, environment: environment(folder), clock: .system)
        XCTAssertEqual(first.status, 0, first.stderr)
        let t = try times(first.stdout)
        XCTAssertEqual(t.count, samples, first.stderr)
        XCTAssertEqual(try sampleCount(first.stderr), samples)
        XCTAssertEqual(t.first, 0)
        XCTAssertEqual(t.last, 30)
        assertStrictlyIncreasing(t)
        XCTAssertTrue(first.stderr.contains("tiltboard: output: \(samples) lines written, 0 dropped\n"), first.stderr)
        XCTAssertFalse(first.stdout.contains("dropped"))

        let second = try CLIRunner.run(arguments, environment: environment(folder), clock: .system)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, first.stdout)
        XCTAssertEqual(second.stderr, first.stderr)
    }

    func testShakeReportsEveryEventTheSameOnEveryRun() throws {
        let folder = try makeScratchFolder(self)
        let board = try traceBoard(folder)
        let arguments = ["shake", "--board", board, "--json", "--duration", "30", "--fast"]
        let first = try CLIRunner.run(arguments, environment: environment(folder), clock: .system)
        XCTAssertEqual(first.status, 0, first.stderr)
        let events = try first.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
        // Each burst is one shake, started and ended, in order.
        XCTAssertEqual(events.map { $0["event"] as? String }, ["start", "end", "start", "end"], first.stdout)
        XCTAssertTrue(first.stderr.contains("tiltboard: 2 shakes in \(samples) samples;"), first.stderr)
        let t = events.compactMap { $0["t"] as? Double }
        XCTAssertEqual(t.count, 4)
        assertStrictlyIncreasing(t)
        if t.count == 4 {
            XCTAssertEqual(t[0], 12, accuracy: 0.3)
            XCTAssertEqual(t[2], 20, accuracy: 0.3)
        }

        let second = try CLIRunner.run(arguments, environment: environment(folder), clock: .system)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, first.stdout)
        XCTAssertEqual(second.stderr, first.stderr)
    }

    /// A reader that lets the pipe fill up and then reads slowly still gets every line: on the
    /// virtual clock the loop waits for it (time stands still meanwhile), and neither the loop
    /// nor the clock is stuck behind the writer.
    func testASlowReaderOnTheVirtualClockGetsEveryLine() throws {
        let folder = try makeScratchFolder(self)
        let board = try traceBoard(folder)
        let arguments = ["run", "--board", board, "--json", "--duration", "30", "--fast"]
        let reference = try CLIRunner.run(arguments, environment: environment(folder), clock: .system)
        XCTAssertEqual(reference.status, 0, reference.stderr)

        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try CLIRunner.binaryPath())
        process.arguments = arguments
        process.environment = TestClock.system.environment(environment(folder))
        process.standardOutput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        let errPath = folder + "/err"
        XCTAssertTrue(FileManager.default.createFile(atPath: errPath, contents: nil))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

        // Keep a writing end open until the pipe is full (under 4 KB free: no POLLOUT), so the
        // command's writer is stuck and its queue fills while nothing is read.
        let writeEnd = dup(fds[1])
        try (process.standardOutput as? FileHandle)?.close()
        var full = false
        pollUntil(every: 0.001) {
            var p = pollfd(fd: writeEnd, events: Int16(POLLOUT), revents: 0)
            full = poll(&p, 1, 0) == 0
            return full || !process.isRunning
        }
        close(writeEnd)
        XCTAssertTrue(full, "the pipe never filled up: \((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")")

        // Then read in small pieces with a pause after each.
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { break }
            data += chunk[0..<n]
            usleep(200)
        }
        process.waitUntilExit()
        let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        let stdout = String(decoding: data, as: UTF8.self)
        XCTAssertEqual(try times(stdout).count, samples, stderr)
        XCTAssertEqual(stdout, reference.stdout)
        XCTAssertTrue(stderr.contains("tiltboard: output: \(samples) lines written, 0 dropped\n"), stderr)
    }

    func testFastOnARealBoardIsAOneLineUsageError() throws {
        let folder = try makeScratchFolder(self)
        let board = folder + "/real.json"
        try #"{"name": "far board", "sensor": {"chip": "mpu6050", "bus": "/dev/i2c-9", "address": "0x68"}}"#
            .write(toFile: board, atomically: true, encoding: .utf8)
        for command in [["run", "--json"], ["shake", "--json"], ["read", "--json"], ["record", "--out", folder + "/r.csv"]] {
            let r = try CLIRunner.run(command + ["--board", board, "--fast"], environment: environment(folder), clock: .system)
            XCTAssertEqual(r.status, 64, "\(command): \(r.stderr)")
            XCTAssertEqual(r.stderr, #"tiltboard: error: --fast needs a simulated board ("bus": "simulated"); far board is on /dev/i2c-9, which runs in real time"# + "\n",
                           "\(command)")
            XCTAssertEqual(r.stdout, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/r.csv"))
    }

    func testFastWithRealtimeIsAUsageError() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["run", "--fast", "--realtime", "--duration", "1"], environment: environment(folder), clock: .system)
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.hasPrefix("tiltboard: error: --fast runs on a virtual clock: --realtime does not apply"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }
}
