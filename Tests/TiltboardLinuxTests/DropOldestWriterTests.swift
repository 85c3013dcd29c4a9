import Foundation
import XCTest
@testable import TiltboardLinux

/// The bounded queue in front of the output writer: a reader that stalls costs the oldest lines,
/// never a wait in `push`.
final class DropOldestWriterTests: XCTestCase {
    /// A sink that blocks until `open()` and records what reached it.
    private final class GatedSink: @unchecked Sendable {
        private let condition = NSCondition()
        private var isOpen = false
        private(set) var lines: [String] = []
        private(set) var entered = 0

        func take(_ bytes: UnsafeRawBufferPointer) {
            condition.lock()
            entered += 1
            condition.broadcast()
            while !isOpen { condition.wait() }
            lines.append(String(decoding: bytes, as: UTF8.self))
            condition.unlock()
        }

        func open() {
            condition.lock(); isOpen = true; condition.broadcast(); condition.unlock()
        }

        /// Waits (generously) until the writer is inside the sink with its first line.
        func waitUntilEntered() -> Bool {
            condition.lock(); defer { condition.unlock() }
            let deadline = Date(timeIntervalSinceNow: 30)
            while entered == 0 { if !condition.wait(until: deadline) { return false } }
            return true
        }

        var received: [String] { condition.lock(); defer { condition.unlock() }; return lines }
    }

    private func push(_ writer: DropOldestWriter, _ text: String) {
        var text = text
        text.withUTF8 { writer.push(UnsafeRawBufferPointer($0)) }
    }

    func testAStalledReaderCostsTheOldestLinesAndPushNeverWaits() {
        let sink = GatedSink()
        let writer = DropOldestWriter(capacity: 4, name: "test-writer") { sink.take($0) }
        push(writer, "line 0")
        XCTAssertTrue(sink.waitUntilEntered())
        // The writer is stuck on line 0; 100 more pushes return at once and keep the newest 4.
        for i in 1...100 { push(writer, "line \(i)") }
        XCTAssertEqual(writer.dropped, 96)
        sink.open()
        XCTAssertTrue(writer.finish(timeoutSeconds: 30))
        XCTAssertEqual(sink.received, ["line 0", "line 97", "line 98", "line 99", "line 100"])
        XCTAssertEqual(writer.written, 5)
        XCTAssertEqual(writer.dropped, 96)
    }

    /// The line stuck in the sink is dropped once: not again when `finish` gives up a second
    /// time, and not also written when the reader takes it afterwards. Written plus dropped stays
    /// the number of lines pushed.
    func testFinishCountsWhatAReaderNeverTookAsDropped() {
        let sink = GatedSink()
        let writer = DropOldestWriter(capacity: 8, name: "test-writer") { sink.take($0) }
        for i in 0..<5 { push(writer, "line \(i)") }
        XCTAssertTrue(sink.waitUntilEntered())
        XCTAssertFalse(writer.finish(timeoutSeconds: 0.05))
        // Line 0 is stuck in the sink, lines 1…4 were still queued: none reached the reader.
        XCTAssertEqual(writer.dropped, 5)
        XCTAssertEqual(writer.written, 0)
        push(writer, "after finish")
        XCTAssertFalse(writer.finish(timeoutSeconds: 0))
        XCTAssertEqual(writer.dropped, 5)
        // The reader takes line 0 after all; the writer thread then ends.
        sink.open()
        XCTAssertTrue(writer.finish(timeoutSeconds: 30))
        XCTAssertEqual(sink.received, ["line 0"])
        XCTAssertEqual(writer.written, 0)
        XCTAssertEqual(writer.dropped, 5)
    }

    func testLinesLongerThanASlotArriveWhole() {
        let sink = GatedSink()
        sink.open()
        let writer = DropOldestWriter(capacity: 2, lineCapacity: 8, name: "test-writer") { sink.take($0) }
        let long = String(repeating: "x", count: 1000)
        push(writer, long)
        XCTAssertTrue(writer.finish(timeoutSeconds: 30))
        XCTAssertEqual(sink.received, [long])
    }
}
