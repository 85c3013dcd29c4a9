import Foundation
import XCTest
import Tiltboard
@testable import TiltboardCLI

/// What `run` does with each sample on the loop thread, without a process or a clock.
final class RunOutputStateTests: XCTestCase {
    /// Collects the lines the writer thread hands on.
    private final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []

        func take(_ bytes: UnsafeRawBufferPointer) {
            lock.withLock { lines.append(String(decoding: bytes, as: UTF8.self)) }
        }

        /// The `t` of each line.
        var times: [Double] {
            lock.withLock { lines }.map { line in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["t"] as? Double ?? .nan
            }
        }
    }

    /// A FIFO batch read late in its tick is stamped back from the tick's wake time, so its first
    /// samples can be older than the last line. With every sample asked for (`--json` without
    /// `--output-rate`) each is still a line, so the samples the summary counts are the lines
    /// written plus those dropped.
    func testEverySampleIsALineEvenWhenItsTimeStepsBack() {
        let lines = Lines()
        let state = RunOutputState(json: true, statusLine: false, interval: 0, sender: nil, engine: nil, write: lines.take)
        // Two ticks draining three frames each at 500 Hz: the second woke at 0.016 s but read its
        // FIFO 4 ms later, so its three frames are stamped back from 0.016 s.
        let times = [0.010, 0.012, 0.014, 0.012, 0.014, 0.016]
        for t in times { state.emit(PipelineOutput(t: t)) }
        XCTAssertTrue(state.stdout.finish(timeout: .seconds(60)))
        XCTAssertEqual(lines.times, times)
        XCTAssertEqual(state.stdout.written, UInt64(times.count))
        XCTAssertEqual(state.stdout.dropped, 0)
    }
}
