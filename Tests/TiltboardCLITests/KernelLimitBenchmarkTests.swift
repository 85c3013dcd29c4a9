import Foundation
import TiltboardCommands
import TiltboardLinux
import XCTest

/// `bench --kernel-limit`: the order of its runs, its medians, `cyclictest`'s arguments and
/// output as the real tool writes them, and the CPU latency request.
final class KernelLimitBenchmarkTests: XCTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    /// Output of the real `cyclictest` (rt-tests 2.4, `-i 2000 -l 300 -m -q -h 150 -p 50`): the
    /// percentiles agree with those of the samples the histogram holds, sorted one by one, with
    /// the overflow counted at the maximum.
    func testCyclictestsOwnOutputIsRead() throws {
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("cyclictest-2.4-h150.txt"), encoding: .utf8)
        let lateness = try XCTUnwrap(KernelLimitBenchmark.parseCyclictest(text))
        var samples: [Double] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            samples += Array(repeating: Double(fields[0])!, count: Int(fields[1])!)
        }
        samples += [159]
        samples.sort()
        XCTAssertEqual(lateness.wakeups, 300)
        XCTAssertEqual(UInt64(samples.count), lateness.wakeups)
        XCTAssertEqual(lateness.p50Microseconds, samples[149])
        XCTAssertEqual(lateness.p99Microseconds, samples[296])
        XCTAssertEqual(lateness.maxMicroseconds, 159)
        XCTAssertNil(KernelLimitBenchmark.parseCyclictest("cyclictest: unrecognized option\n"))
    }

    func testCyclictestRunsAsTheLoopDoes() {
        XCTAssertEqual(KernelLimitBenchmark.cyclictestArguments(rateHz: 500, seconds: 2, realtime: true, cpuLatencyZero: true),
                       ["-i", "2000", "-l", "1000", "-m", "-q", "-h", "10000", "-p", "50"])
        XCTAssertEqual(KernelLimitBenchmark.cyclictestArguments(rateHz: 500, seconds: 0.5, realtime: false, cpuLatencyZero: false),
                       ["-i", "2000", "-l", "250", "-m", "-q", "-h", "10000", "--laptop"])
    }

    /// Each round runs cyclictest then the loop, without the request and then with it; a source
    /// that cannot run drops out with its note; the medians are over the rounds.
    func testRoundsInterleaveAndMedians() {
        var calls: [String] = []
        var p50 = 0.0
        let report = KernelLimitBenchmark.run(rounds: 3, rateHz: 500, seconds: 1, realtime: true, cpuLatencyNote: nil,
                                              progress: { _ in }, shouldStop: { false }) { source, zero in
            calls.append("\(source.rawValue)\(zero ? "+0" : "")")
            p50 += 1
            return .lateness(WakeLateness(wakeups: 500, p50Microseconds: p50, p99Microseconds: p50 * 2, maxMicroseconds: 100))
        }
        XCTAssertEqual(calls, Array(repeating: ["cyclictest", "loop", "cyclictest+0", "loop+0"], count: 3).flatMap { $0 })
        XCTAssertEqual(report.runs.map(\.round), [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
        // cyclictest without the request had p50 1, 5, 9; the loop with it 4, 8, 12.
        XCTAssertEqual(report.medians, [
            WakeMedian(source: .cyclictest, cpuLatencyZero: false, p50Microseconds: 5, p99Microseconds: 10),
            WakeMedian(source: .loop, cpuLatencyZero: false, p50Microseconds: 6, p99Microseconds: 12),
            WakeMedian(source: .cyclictest, cpuLatencyZero: true, p50Microseconds: 7, p99Microseconds: 14),
            WakeMedian(source: .loop, cpuLatencyZero: true, p50Microseconds: 8, p99Microseconds: 16),
        ])
        XCTAssertNil(report.cyclictestNote)

        calls = []
        let alone = KernelLimitBenchmark.run(rounds: 2, rateHz: 500, seconds: 1, realtime: false, cpuLatencyNote: "refused",
                                             progress: { _ in }, shouldStop: { false }) { source, zero in
            calls.append("\(source.rawValue)\(zero ? "+0" : "")")
            return source == .cyclictest ? .unavailable("not installed")
                : .lateness(WakeLateness(wakeups: 1, p50Microseconds: 3, p99Microseconds: 4, maxMicroseconds: 5))
        }
        XCTAssertEqual(calls, ["cyclictest", "loop", "loop"])
        XCTAssertEqual(alone.cyclictestNote, "not installed")
        XCTAssertEqual(alone.cpuLatencyNote, "refused")
        XCTAssertEqual(alone.medians, [WakeMedian(source: .loop, cpuLatencyZero: false, p50Microseconds: 3, p99Microseconds: 4)])
        XCTAssertEqual(KernelLimitBenchmark.median([3, 1, 2, 10]), 2.5)
    }

    /// The request is a 32-bit number written once and held open; a path that cannot be opened
    /// gives the kernel's errno.
    func testTheCPULatencyRequestWritesAnInt32() throws {
        let folder = try makeScratchFolder(self)
        let path = folder + "/cpu_dma_latency"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        let request = try CPULatencyRequest.hold(microseconds: 7, path: path).get()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data([7, 0, 0, 0]))
        request.release()
        request.release()
        guard case let .failure(refused) = CPULatencyRequest.hold(path: folder + "/missing/x") else { return XCTFail("held") }
        XCTAssertEqual(refused.errno, ENOENT)
    }

    /// The command on the simulated board without cyclictest on the PATH: the loop's runs alone,
    /// and why there are no others.
    func testTheCommandWithoutCyclictest() throws {
        let folder = try makeScratchFolder(self)
        let r = try CLIRunner.run(["bench", "--kernel-limit", "--json", "--seconds", "0.05"],
                                  environment: ["XDG_CONFIG_HOME": folder, "PATH": folder])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["rateHz"] as? Double, 500)
        XCTAssertEqual(report["cyclictestNote"] as? String, "cyclictest is not installed (Debian package rt-tests)")
        let runs = try XCTUnwrap(report["runs"] as? [[String: Any]])
        XCTAssertEqual(Set(runs.map { $0["source"] as? String }), ["loop"])
        XCTAssertEqual(runs.filter { $0["cpuLatencyZero"] as? Bool == false }.map { $0["round"] as? Int }, [1, 2, 3, 4, 5])
        for run in runs {
            let lateness = try XCTUnwrap(run["lateness"] as? [String: Any])
            XCTAssertGreaterThan(lateness["wakeups"] as? Int ?? 0, 0, "\(run)")
        }
        XCTAssertTrue(r.stderr.contains("tiltboard: round 5 of 5: the loop…"), r.stderr)
    }
}
